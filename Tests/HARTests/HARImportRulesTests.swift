import Chaos
import Foundation
import BundleFormat
import HAR
import TestSupport
import Testing

/// HAR import on hand-written HARs: what each tool writes is read, every failure becomes the rule
/// that reproduces it (pinned by the playlists the HAR carries), what cannot be reproduced is said,
/// the scenario validates, the bundle holds the content, and bad input is a clear error.
@Suite struct HARImportRulesTests {
    /// The scenario's rules as JSON objects, by id.
    static func rules(_ imported: HARImport) throws -> [String: [String: Any]] {
        let text = try #require(imported.scenarioText)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let list = try #require(object["rules"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map { ($0["id"] as? String ?? "", $0) })
    }

    /// The same JSON object (compared as canonical JSON text: key order and number types aside).
    static func same(_ value: Any?, _ expected: [String: Any]) -> Bool {
        guard let value = value as? [String: Any] else { return false }
        func text(_ object: [String: Any]) -> String? {
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) }
        }
        return text(value) != nil && text(value) == text(expected)
    }

    @Test func aFieldHARBecomesOneRulePerFailurePinnedByItsPlaylists() throws {
        let (har, at) = HARFixture.field()
        let imported = try HARImport.analyze(HARReader.read(har.json, file: "field.har"), file: "field.har")
        let rules = try Self.rules(imported)
        #expect(imported.rules.map(\.id) == [
            "seg-audio-fr-msn104-reset", "seg-v2-msn105-503-first-request", "seg-v2-msn106-108-503",
            "seg-v2-msn109-slow-first-byte", "seg-v2-msn110-slow-body", "seg-v1-msn111-truncated", "seg-v2-msn111-hang",
            "seg-at29s-404",
        ])

        let fr = try #require(rules["seg-audio-fr-msn104-reset"])
        #expect(Self.same(fr["match"], ["kind": "segment", "rendition": ["type": "AUDIO", "language": "fr", "name": "Français"], "msn": 104]))
        #expect(Self.same(fr["action"], ["reset": "before-headers"]))

        // A retry that succeeded: only the first request fails on replay.
        let retried = try #require(rules["seg-v2-msn105-503-first-request"])
        #expect(Self.same(retried["match"], ["kind": "segment", "variant": ["index": 2], "msn": 105, "requests": 1]))
        #expect(Self.same(retried["action"], ["status": 503, "headers": ["Retry-After": "2"]]))
        #expect((retried["description"] as? String)?.contains("then 200 (the retry succeeded)") == true)
        #expect((retried["description"] as? String)?.contains("log.entries[\(at["v2-105-503"]!)] then [\(at["v2-105-ok"]!)] (200)") == true)
        #expect((retried["description"] as? String)?.contains("pinned by the playlists in the HAR") == true)

        // Failed every time, on consecutive MSNs: one rule, every request.
        let always = try #require(rules["seg-v2-msn106-108-503"])
        #expect(Self.same(always["match"], ["kind": "segment", "variant": ["index": 2], "msn": ["from": 106, "to": 108]]))
        #expect(Self.same(always["action"], ["status": 503]))

        #expect(Self.same(rules["seg-v2-msn109-slow-first-byte"]?["action"], ["delay": "3s"]))
        #expect(Self.same(rules["seg-v2-msn110-slow-body"]?["action"], ["throttle": "200kbps"]))
        #expect(Self.same(rules["seg-v1-msn111-truncated"]?["match"], ["kind": "segment", "variant": ["index": 1], "msn": 111]))
        #expect(Self.same(rules["seg-v1-msn111-truncated"]?["action"], ["truncate": ["afterBytes": 40_000]]))
        #expect(Self.same(rules["seg-v2-msn111-hang"]?["action"], ["hang": "12s"]))

        // Not in any playlist: by session time (seconds from the first HLS request at 0.5 s).
        let ad = try #require(rules["seg-at29s-404"])
        #expect(Self.same(ad["match"], ["kind": "segment", "after": "29s", "for": "1.5s"]))
        #expect(Self.same(ad["action"], ["status": 404]))
    }

    @Test func theScenarioPassesTheValidatorAndNamesTheHAR() throws {
        try withTemporaryFolder("har") { folder in
            let (har, _) = HARFixture.field()
            let path = try har.write(named: "living-room tv.har", in: folder)
            let imported = try HARImport.analyze(path: path)
            let text = try #require(imported.scenarioText)
            let scenario = try RuleDecoder.decode(Array(text.utf8), file: "scenario.json")
            #expect(scenario.name == "har-living-room-tv")
            #expect(scenario.description?.contains("living-room tv.har") == true)
            #expect(scenario.description?.contains("Chrome DevTools 537.36") == true)
            #expect(scenario.rules.count == imported.rules.count)
            // The file on disk goes through RuleFiles like `--rules` and `hlschaos validate` do.
            let out = folder.path("out")
            let written = try imported.write(to: out)
            let loaded = try RuleFiles.load(paths: [try #require(written.scenarioPath)])
            #expect(loaded.first?.rules.map(\.id) == imported.rules.map(\.id))
        }
    }

    @Test func whatCouldNotBeReproducedIsSaidWithWhy() throws {
        let (har, at) = HARFixture.field()
        let imported = try HARImport.analyze(HARReader.read(har.json, file: "field.har"), file: "field.har")
        let notes = imported.notes.joined(separator: "\n")
        #expect(notes.contains("not HLS: 2 requests are not part of the stream"), "\(notes)")
        #expect(notes.contains("1 of them failed (log.entries[\(at["favicon"]!)] 404 www.example.com/favicon.ico)"), "\(notes)")
        #expect(notes.contains("cancelled: 1 request was cancelled by the client (net::ERR_ABORTED) (log.entries[\(at["v0-111"]!)])"), "\(notes)")
        #expect(notes.contains("log.entries[\(at["ad"]!)] (segment, 404): not pinned to a resource: the HAR does not say which segment"), "\(notes)")
        #expect(notes.contains("bodies: "), "segments were saved without their bodies: \(notes)")
        let report = imported.report(nil)
        #expect(report.contains("Reproduced in scenario.json (scenario \"har-field\", 8 rules, valid):"), "\(report)")
        #expect(report.contains("Not reproduced:"))
    }

    @Test func theBundleHoldsEveryEntryWithItsBodyAndTimings() throws {
        try withTemporaryFolder("har") { folder in
            let (har, at) = HARFixture.field()
            let imported = try HARImport.analyze(HARReader.read(har.json, file: "field.har"), file: "field.har")
            let out = folder.path("out")
            let written = try imported.write(to: out)
            #expect(written.scenarioPath == out + "/scenario.json")
            let bundle = try RecordingBundle.open(written.bundlePath)
            #expect(bundle.manifest.source == .har)
            #expect(bundle.manifest.entry == "\(HARFixture.origin)/master.m3u8")
            #expect(bundle.exchanges.count == har.entries.count)

            let first = try #require(bundle.exchanges.first { $0.url == "\(HARFixture.origin)/v2/seg100.ts" })
            #expect(try bundle.body(of: first) == Array(repeating: 0x47, count: 1880), "base64 content.text is decoded")
            #expect(first.at == 1.0 && first.kind == "segment")
            #expect(first.timings.firstByte.map { abs($0 - 0.04205) < 1e-9 } == true, "blocked + send + wait: \(first.timings)")
            #expect(first.timings.total.map { abs($0 - 0.242) < 1e-9 } == true)
            #expect(first.timings.connect == nil)

            let master = try #require(bundle.exchanges.first { $0.kind == "master" })
            #expect(String(decoding: try bundle.body(of: master), as: UTF8.self) == HARFixture.master)
            let truncated = try #require(bundle.exchanges.first { $0.url.hasSuffix("/v1/seg111.ts") })
            #expect(truncated.ending == .truncated && truncated.error == "net::ERR_CONTENT_LENGTH_MISMATCH")
            let reset = try #require(bundle.exchanges.first { $0.url.hasSuffix("/audio/fr/seg104.ts") })
            #expect(reset.status == nil && reset.ending == .reset)
            let hung = try #require(bundle.exchanges.first { $0.url.hasSuffix("/v2/seg111.ts") })
            #expect(hung.ending == .timeout && hung.timings.total == 12)
            _ = at
            // In the order responses ended.
            #expect(bundle.exchanges.map(\.receivedAt) == bundle.exchanges.map(\.receivedAt).sorted())
        }
    }

    @Test func anExistingOutDirectoryIsNeverOverwritten() throws {
        try withTemporaryFolder("har") { folder in
            let (har, _) = HARFixture.field()
            let imported = try HARImport.analyze(HARReader.read(har.json, file: "field.har"), file: "field.har")
            let out = folder.path("out")
            try imported.write(to: out)
            let before = try String(contentsOfFile: out + "/scenario.json", encoding: .utf8)
            #expect {
                try imported.write(to: out)
            } throws: { error in
                (error as? HARImportError)?.description == "\(out): already exists and is not empty (bundle, link.csv, scenario.json): import-har never overwrites; choose a new --out or remove it"
            }
            #expect(try String(contentsOfFile: out + "/scenario.json", encoding: .utf8) == before)
            // An empty directory is fine.
            let empty = folder.path("empty")
            try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
            #expect(try imported.write(to: empty).scenarioPath != nil)
        }
    }

    @Test func redactDropsTokensAndCookiesFromTheBundle() throws {
        try withTemporaryFolder("har") { folder in
            var har = HARFixture()
            har.add("\(HARFixture.origin)/v2/index.m3u8?token=secret&_HLS_msn=5", at: 0, body: HARFixture.media(first: 0),
                    headers: [("Set-Cookie", "id=1"), ("Content-Type", "application/vnd.apple.mpegurl")],
                    requestHeaders: [("Cookie", "id=1")])
            let imported = try HARImport.analyze(HARReader.read(har.json, file: "t.har"), file: "t.har")
            let out = folder.path("out")
            let written = try imported.write(to: out, redact: true)
            #expect(written.scenarioPath == nil, "nothing went wrong")
            let bundle = try RecordingBundle.open(written.bundlePath)
            #expect(bundle.manifest.redacted)
            #expect(bundle.exchanges[0].url == "\(HARFixture.origin)/v2/index.m3u8?_HLS_msn=5")
            #expect(bundle.exchanges[0].header("set-cookie") == nil && bundle.exchanges[0].header("content-type") != nil)
            #expect(imported.report(written).contains("Nothing to reproduce"))
        }
    }

    @Test func reloadsOfAPlaylistAreCountedSoTheThirdOneFailsOnReplay() throws {
        var har = HARFixture()
        har.add("\(HARFixture.origin)/master.m3u8", at: 0, body: HARFixture.master)
        for reload in 0..<5 {
            let failed = reload == 2 || reload == 3
            har.add("\(HARFixture.origin)/v2/index.m3u8", at: Double(reload) * 2 + 0.1, status: failed ? 502 : 200,
                    body: failed ? "bad gateway" : HARFixture.media(first: reload))
        }
        let imported = try HARImport.analyze(HARReader.read(har.json, file: "t.har"), file: "t.har")
        let rules = try Self.rules(imported)
        let rule = try #require(rules["media-v2-502-requests-3-4"], "\(rules.keys)")
        #expect(Self.same(rule["match"], ["kind": "media", "variant": ["index": 2], "requests": ["from": 3, "to": 4]]))
        #expect((rule["description"] as? String)?.hasPrefix("the media playlist of variant 2 (960x540): 502 on requests 3 to 4, then 200") == true)
    }

    @Test func byteRangeSegmentsArePinnedByTheirRange() throws {
        let playlist = """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:0
            #EXTINF:2.0,
            #EXT-X-BYTERANGE:1000@0
            all.ts
            #EXTINF:2.0,
            #EXT-X-BYTERANGE:1000@1000
            all.ts
            #EXTINF:2.0,
            #EXT-X-BYTERANGE:1000@2000
            all.ts

            """
        var har = HARFixture()
        har.add("\(HARFixture.origin)/br/index.m3u8", at: 0, body: playlist)
        har.add("\(HARFixture.origin)/br/all.ts", at: 1, size: 1000, requestHeaders: [("Range", "bytes=0-999")])
        har.add("\(HARFixture.origin)/br/all.ts", at: 2, status: 500, requestHeaders: [("Range", "bytes=1000-1999")])
        let imported = try HARImport.analyze(HARReader.read(har.json, file: "t.har"), file: "t.har")
        let rules = try Self.rules(imported)
        #expect(Self.same(rules["seg-msn1-500"]?["match"], ["kind": "segment", "msn": 1]), "\(rules.keys)")
    }

    // MARK: - What the tools write

    @Test func safariCharlesAndHlschaosDialectsAreRead() throws {
        var har = HARFixture()
        har.creator = ("WebKit Web Inspector", "19618.1.15")
        // Safari: "" for a date it does not have, a cached answer, a failure in CFNetwork's words.
        har.add("\(HARFixture.origin)/master.m3u8", at: 0, body: HARFixture.master, extra: ["_fetchType": "Network Load"])
        let undated = har.add("\(HARFixture.origin)/v2/index.m3u8", at: 0.2, body: HARFixture.media(first: 0), extra: ["startedDateTime": ""])
        let cached = har.add("\(HARFixture.origin)/v2/seg0.ts", at: 0.4, size: 5000, extra: ["_fetchType": "Memory Cache"])
        let lost = har.add("\(HARFixture.origin)/v2/seg1.ts", at: 1, status: 0, error: "The network connection was lost.")
        // Charles: statusText null, an HTTP/2 pseudo-header, a time with an offset, its own status field.
        let charles = har.add("\(HARFixture.origin)/v2/seg2.ts", at: 2, size: 100, headers: [(":status", "200")],
                              extra: ["startedDateTime": "2026-11-18T09:26:42.000+01:00"],
                              responseExtra: ["statusText": NSNull(), "_charlesStatus": "EXCEPTION", "comment": "Remote server closed the connection"])
        // hlschaos: _resource says what the proxy made of the request, wherever its URL points.
        let tagged = har.add("http://proxy:8080/s/tv/x.ts", at: 3, status: 504,
                             extra: ["_resource": ["kind": "segment", "variant": 1, "rendition": NSNull(), "msn": 9, "part": NSNull(), "copy": NSNull()]])
        let log = try HARReader.read(har.json, file: "t.har")
        #expect(log.creatorText == "Safari Web Inspector 19618.1.15")
        #expect(log.entries[undated].started == nil)
        #expect(log.entries[cached].fromCache)
        #expect(log.entries[charles].error == "Charles: EXCEPTION: Remote server closed the connection")
        #expect(log.entries[charles].responseHeaders.isEmpty, "pseudo-headers are not headers")
        #expect(log.entries[charles].started == HARReader.date("2026-11-18T08:26:42Z"))
        #expect(log.entries[tagged].resource == HAREntry.ResourceHint(kind: "segment", variant: 1, msn: 9))

        let imported = try HARImport.analyze(log, file: "t.har")
        #expect(imported.observations[cached].outcome == .cached)
        #expect(imported.observations[lost].outcome == .fault(HARFault(wire: .resetBeforeHeaders)))
        #expect(imported.observations[charles].outcome == .fault(HARFault(wire: .resetAfter(bytes: 100))))
        #expect(imported.classifications[tagged].pinning == .hlschaosResource)
        let rules = try Self.rules(imported)
        #expect(Self.same(rules["seg-v1-msn9-504"]?["match"], ["kind": "segment", "variant": ["index": 1], "msn": 9]), "\(rules.keys)")
        #expect(imported.notes.contains { $0.hasPrefix("times: 1 entry has no startedDateTime (log.entries[\(undated)])") })
    }

    @Test func hlschaosURLTagsPinWhatThePlaylistsPin() throws {
        var har = HARFixture()
        let proxy = "http://127.0.0.1:8080/s/tv"
        let master = HARFixture.master.replacingOccurrences(of: "https://cdn.example.com/live/v2/index.m3u8", with: "\(proxy)/~media.v2/https/cdn/v2/index.m3u8")
        har.add("\(proxy)/live/master.m3u8", at: 0, body: master)
        har.add("\(proxy)/~media.v2/https/cdn/v2/index.m3u8", at: 0.1, body: "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:7\n#EXTINF:2,\n/s/tv/~seg.v2.n7/https/cdn/v2/a.ts\n")
        har.add("\(proxy)/~seg.v2.n7/https/cdn/v2/a.ts", at: 1, status: 503)
        for useTags in [true, false] {
            let imported = try HARImport.analyze(HARReader.read(har.json, file: "t.har"), file: "t.har", useProxyTags: useTags)
            #expect(imported.rules.map(\.id) == ["seg-v2-msn7-503"])
            #expect(imported.classifications[2].pinning == (useTags ? .proxyTag : .playlists))
        }
    }

    @Test(arguments: [
        ("2026-11-23T20:14:03.123Z", 1_795_464_843.123),
        ("2026-11-23T20:14:03.123456Z", 1_795_464_843.123456),
        ("2026-11-23T20:14:03Z", 1_795_464_843.0),
        ("2026-11-23T21:14:03.5+01:00", 1_795_464_843.5),
        ("2026-11-23T15:14:03.000-0500", 1_795_464_843.0),
    ])
    func datesInTheFormsToolsWrite(text: String, epoch: Double) throws {
        let date = try #require(HARReader.date(text))
        #expect(abs(date.timeIntervalSince1970 - epoch) < 1e-5, "\(text) → \(date.timeIntervalSince1970)")
    }

    @Test func datesThatAreNotDates() {
        for text in ["yesterday", "2026-13-01T00:00:00Z", "2026-11-23 20:14", "2026-11-23T20:14:03.Z", "2026-11-23T20:14:03Zjunk"] {
            #expect(HARReader.date(text) == nil, "\(text)")
        }
    }

    // MARK: - Malformed input

    static func entry(_ response: String = #"{"status": 200}"#, request: String = #"{"method": "GET", "url": "https://a/b.ts"}"#) -> String {
        #"{"log": {"version": "1.2", "entries": [{"startedDateTime": "2026-11-23T20:14:03Z", "request": \#(request), "response": \#(response)}]}}"#
    }

    @Test(arguments: [
        ("", "bad.har: is empty, not a HAR (a HAR is a JSON object {\"log\": {\"entries\": [...]}})"),
        ("{\"log\": {\"entries\": [}}", "bad.har: is not JSON, so not a HAR: invalid JSON at line 1, column 22: unexpected character '}'"),
        ("<html>", "bad.har: is not JSON, so not a HAR: invalid JSON at line 1, column 1: unexpected character '<'"),
        ("[1, 2]", "bad.har: is JSON but not a HAR: the top level is a list, not an object {\"log\": {...}}"),
        ("{\"name\": \"x\", \"rules\": []}", "bad.har: is JSON but not a HAR: it has no \"log\" object (its keys: \"name\", \"rules\")"),
        ("{\"log\": {\"version\": \"1.2\"}}", "bad.har: log.entries: is missing: a HAR lists its requests there"),
        ("{\"log\": {\"entries\": {}}}", "bad.har: log.entries: expected a list of entries, got an object"),
        ("{\"log\": {\"entries\": []}}", "bad.har: log.entries: is empty: the HAR holds no requests (was it saved before the page loaded anything?)"),
        ("{\"log\": {\"entries\": [42]}}", "bad.har: log.entries[0]: expected an object (one request and its response), got a number (42)"),
        (#"{"log": {"entries": [{"response": {"status": 200}}]}}"#, "bad.har: log.entries[0].request: is missing: each entry needs the request it records"),
        (entry(request: #"{"method": "GET"}"#), "bad.har: log.entries[0].request.url: is missing: each request needs its URL"),
        (entry(request: #"{"url": 7}"#), "bad.har: log.entries[0].request.url: expected a string, got a number (7)"),
        (entry(#"{"status": "OK"}"#), "bad.har: log.entries[0].response.status: expected a number, got a string (\"OK\")"),
        (entry(#"{"statusText": "OK"}"#), "bad.har: log.entries[0].response.status: is missing: a response needs its status (0 when none arrived)"),
        (entry(#"{"status": 2000}"#), "bad.har: log.entries[0].response.status: 2000.0 is not an HTTP status (100 to 999, or 0 when no response arrived)"),
        (entry(#"{"status": 200, "headers": {"a": "b"}}"#), "bad.har: log.entries[0].response.headers: expected a list of {\"name\", \"value\"}, got an object"),
        (entry(#"{"status": 200, "content": {"size": "big"}}"#), "bad.har: log.entries[0].response.content.size: expected a number, got a string (\"big\")"),
        (#"{"log": {"entries": [{"startedDateTime": "noon", "request": {"url": "https://a/b"}, "response": {"status": 200}}]}}"#,
         "bad.har: log.entries[0].startedDateTime: \"noon\" is not an ISO 8601 date and time (such as 2026-11-23T20:14:03.123Z)"),
    ])
    func malformedHARsAreClearErrorsNamingTheJSONPath(text: String, message: String) {
        #expect {
            _ = try HARReader.read(Array(text.utf8), file: "bad.har")
        } throws: { error in
            let description = (error as? HARImportError)?.description
            if description != message { Issue.record("got: \(description ?? "\(error)")") }
            return description == message
        }
    }

    @Test func aMissingFileOrADirectoryIsAClearError() throws {
        try withTemporaryFolder("har") { folder in
            #expect(throws: HARImportError(file: "/nonexistent/x.har", "no such file")) { try HARReader.read(path: "/nonexistent/x.har") }
            let directory = folder.path("directory")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            #expect(throws: HARImportError(file: directory, "is a directory, not a HAR file")) { try HARReader.read(path: directory) }
        }
    }

    @Test func aBadBase64BodyIsNotFatal() throws {
        var har = HARFixture()
        let index = har.add("\(HARFixture.origin)/v2/seg1.ts", at: 0, size: 10)
        var entries = har.entries
        var response = entries[index]["response"] as! [String: Any]
        response["content"] = ["size": 10, "mimeType": "video/mp2t", "text": "***not base64***", "encoding": "base64"]
        entries[index]["response"] = response
        har.entries = entries
        let imported = try HARImport.analyze(HARReader.read(har.json, file: "t.har"), file: "t.har")
        #expect(imported.notes.contains("log.entries[0]: body not kept: log.entries[0].response.content.text is not valid base64 although \"encoding\" says so"),
                "\(imported.notes)")
    }
}

/// Damaged HARs: whatever a field holds, the import ends in a result or a `HARImportError`, never a crash.
@Suite struct HARDamageTests {
    nonisolated(unsafe) static let replacements: [Any] = [NSNull(), "x", "", -1, 0, 1e300, 9_223_372_036_854_775_807, 2.5, true, [Any](), [String: Any](),
                                      "2026-11-23T20:14:03Z", "#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:99999999999999999999\n#EXTINF:2,\nx.ts\n", "~seg.v9.n9223372036854775807"]

    /// Replaces or removes one value somewhere in the tree.
    static func damage(_ value: Any, _ random: inout SeededGenerator, depth: Int = 0) -> Any? {
        if depth > 0, Int.random(in: 0..<4, using: &random) == 0 {
            return Int.random(in: 0..<5, using: &random) == 0 ? nil : replacements.randomElement(using: &random)!
        }
        if var object = value as? [String: Any], let key = object.keys.sorted().randomElement(using: &random) {
            object[key] = damage(object[key]!, &random, depth: depth + 1)
            return object
        }
        if var array = value as? [Any], !array.isEmpty {
            let index = Int.random(in: 0..<array.count, using: &random)
            if let damaged = damage(array[index], &random, depth: depth + 1) { array[index] = damaged } else { array.remove(at: index) }
            return array
        }
        return replacements.randomElement(using: &random)!
    }

    @Test func damagedHARsNeverCrashTheImport() throws {
        let (har, _) = HARFixture.field()
        let tree = try JSONSerialization.jsonObject(with: Data(har.json))
        // HAR_DAMAGE_RUNS=5000 HAR_DAMAGE_SEED=7 for a longer search.
        let environment = ProcessInfo.processInfo.environment
        let runs = environment["HAR_DAMAGE_RUNS"].flatMap(Int.init) ?? 400
        var random = SeededGenerator(state: environment["HAR_DAMAGE_SEED"].flatMap(UInt64.init) ?? 14)
        var errors = 0
        for _ in 0..<runs {
            var damaged: Any = tree
            for _ in 0..<Int.random(in: 1...3, using: &random) { damaged = Self.damage(damaged, &random) ?? damaged }
            guard JSONSerialization.isValidJSONObject(damaged), let bytes = try? JSONSerialization.data(withJSONObject: damaged) else { continue }
            do {
                let imported = try HARImport.analyze(HARReader.read([UInt8](bytes), file: "damaged.har"), file: "damaged.har")
                _ = imported.report(nil)
            } catch {
                errors += 1
                #expect(error.description.hasPrefix("damaged.har: "), "\(error)")
                #expect(!error.description.contains("a bug in import-har"), "\(error)")
            }
        }
        #expect(errors > 0 && errors < runs, "\(errors) of \(runs) damaged HARs were refused")
    }
}
