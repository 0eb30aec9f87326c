import Foundation
@testable import HAR
import Records
import Testing

/// Records as the data plane writes them, one of each shape a HAR has to show.
enum HARFixtures {
    static let start = Date(timeIntervalSince1970: 1_772_000_000.25)
    static let baseURL = "http://192.168.1.20:8080"

    /// A segment streamed from the origin: fresh connection, 40 ms to the first byte.
    static let segment = RequestRecord(
        id: 11, time: start, session: "tv1", client: "192.168.1.30:51234", method: "GET",
        path: "/s/tv1/~seg.v2.n42/https/cdn.example.com/content/v2/segment42.ts?token=a%2Fb&x",
        kind: .segment, variant: 2, msn: 42,
        upstream: .init(url: "https://cdn.example.com/content/v2/segment42.ts?token=a%2Fb&x", status: 200,
                        connect: 0.012, firstByte: 0.052, total: 0.3),
        status: 200, bytesSent: 1_128_000, ending: .complete, duration: 0.3105,
        requestHeaders: [.init("range", "bytes=0-"), .init("user-agent", "AppleCoreMedia/1.0")],
        responseHeaders: [.init("Content-Type", "video/mp2t"), .init("Content-Length", "1128000")])

    /// A 503 injected by a rule: the origin was never asked.
    static let fault503 = RequestRecord(
        id: 12, time: start.addingTimeInterval(0.5), session: "tv1", client: "192.168.1.30:51234", method: "GET",
        path: "/s/tv1/~seg.v2.n43/https/cdn.example.com/content/v2/segment43.ts",
        kind: .segment, variant: 2, msn: 43,
        matchedRules: ["outage/seg-503", "outage/log-all"],
        decidingRules: .init(response: "outage/seg-503"), actions: [.init(.status(503), rule: "outage/seg-503")],
        status: 503, bytesSent: 52, ending: .complete, duration: 0.0021,
        responseHeaders: [.init("content-type", "text/plain; charset=utf-8"), .init("x-hlschaos-fault", "outage/seg-503")])

    /// A `hang` on the master playlist: no status line, until the client gave up after 10 s.
    static let hang = RequestRecord(
        id: 13, time: start.addingTimeInterval(1), session: "tv1", client: "192.168.1.30:51240", method: "GET",
        path: "/s/tv1/vod/ts/master.m3u8", kind: .master,
        matchedRules: ["timeouts/master-hang"], decidingRules: .init(response: "timeouts/master-hang"),
        actions: [.init(.hang(seconds: 60), rule: "timeouts/master-hang")], status: nil, bytesSent: 0, ending: .hang, duration: 10.000_25)

    /// A 2 s delay before a media playlist fetched over a reused connection.
    static let delayed = RequestRecord(
        id: 14, time: start.addingTimeInterval(2), session: "tv1", client: "192.168.1.30:51234", method: "GET",
        path: "/s/tv1/~media.v2/https/cdn.example.com/content/v2/index.m3u8", kind: .media, variant: 2,
        upstream: .init(url: "https://cdn.example.com/content/v2/index.m3u8", status: 200, connect: 0, firstByte: 0.03, total: 0.031),
        matchedRules: ["slow/playlist"], decidingRules: .init(delay: "slow/playlist"), actions: [.init(.delay(seconds: 2), rule: "slow/playlist")],
        status: 200, bytesSent: 900, duration: 2.0345,
        responseHeaders: [.init("content-type", "application/vnd.apple.mpegurl")])

    /// A redirect passed through, then an upstream failure answered 502 and a reset mid-body.
    static let redirect = RequestRecord(
        id: 15, time: start.addingTimeInterval(3), session: "tv1", client: "192.168.1.30:51234", method: "GET",
        path: "/s/tv1/vod/ts/master.m3u8", kind: .master,
        upstream: .init(url: "https://cdn.example.com/content/master.m3u8", status: 302, connect: 0.004, firstByte: 0.01, total: 0.01),
        status: 302, bytesSent: 0, duration: 0.0105,
        responseHeaders: [.init("Location", "/s/tv1/~master/https/cdn2.example.com/master.m3u8")])
    static let badGateway = RequestRecord(
        id: 16, time: start.addingTimeInterval(4), session: "tv1", client: "192.168.1.30:51234", method: "GET",
        path: "/s/tv1/~seg.v1.n7/https/cdn.example.com/v1/7.ts", kind: .segment, variant: 1, msn: 7,
        upstream: .init(url: "https://cdn.example.com/v1/7.ts", error: "Couldn't connect to server"),
        status: 502, bytesSent: 40, duration: 1.5, responseHeaders: [.init("content-type", "text/plain")])
    static let reset = RequestRecord(
        id: 17, time: start.addingTimeInterval(5), session: "tv1", client: "192.168.1.30:51234", method: "GET",
        path: "/s/tv1/~seg.v1.n8/https/cdn.example.com/v1/8.ts", kind: .segment, variant: 1, copy: "backup", msn: 8,
        upstream: .init(url: "https://cdn.example.com/v1/8.ts", status: 200, connect: 0.002, firstByte: 0.01, total: 0.2),
        matchedRules: ["net/reset-half"], decidingRules: .init(response: "net/reset-half"), actions: [.init(.reset(.afterBytes(500_000)), rule: "net/reset-half")],
        status: 200, bytesSent: 500_000, ending: .reset, duration: 0.1,
        responseHeaders: [.init("content-type", "video/mp2t")])

    static let all = [segment, fault503, hang, delayed, redirect, badGateway, reset]
}

@Suite struct HARDocumentTests {
    func document(_ records: [RequestRecord] = HARFixtures.all, pretty: Bool = true) throws -> [String: Any] {
        let data = HARDocument.data(records: records, baseURL: HARFixtures.baseURL, creatorVersion: "0.9.0", prettyPrinted: pretty)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func entries(_ document: [String: Any]) throws -> [[String: Any]] {
        let log = try #require(document["log"] as? [String: Any])
        return try #require(log["entries"] as? [[String: Any]])
    }

    /// A list of objects with each value as text ("503"), for comparing what JSONSerialization read.
    static func texts(_ value: Any?) -> [[String: String]]? {
        (value as? [[String: Any]])?.map { $0.mapValues { "\($0)" } }
    }

    func entry(_ record: RequestRecord) throws -> [String: Any] {
        try #require(try entries(document([record])).first)
    }

    @Test func everyRequiredFieldIsThereWithItsType() throws {
        let document = try document()
        let problems = HARSpecCheck.problems(in: document)
        #expect(problems == [])
        let log = try #require(document["log"] as? [String: Any])
        #expect(log["version"] as? String == "1.2")
        let creator = try #require(log["creator"] as? [String: Any])
        #expect(creator["name"] as? String == "hlschaos")
        #expect(creator["version"] as? String == "0.9.0")
        #expect((log["pages"] as? [Any])?.isEmpty == true)
    }

    @Test func anEmptySessionIsAValidHAR() throws {
        let document = try document([])
        #expect(HARSpecCheck.problems(in: document) == [])
        #expect(try entries(document).isEmpty)
    }

    @Test func entriesMatchRecordsOneToOneInTheOrderRequestsStarted() throws {
        // Records come in the order they ended (reversed here); a second request that arrived at the
        // same moment as the first comes after it by id.
        var twin = HARFixtures.segment
        twin.id = 20
        let records = [twin] + HARFixtures.all.reversed()
        let started = [HARFixtures.segment, twin] + HARFixtures.all.dropFirst()
        let entries = try entries(document(records))
        #expect(entries.count == started.count)
        #expect(entries.map { $0["_id"] as? Int } == started.map { Int($0.id) })
        for (entry, record) in zip(entries, started) {
            #expect(entry["_id"] as? Int == Int(record.id))
            #expect(entry["_session"] as? String == record.session)
            #expect(entry["_client"] as? String == record.client)
            #expect(entry["_ending"] as? String == record.ending.rawValue)
            #expect(entry["startedDateTime"] as? String == RecordTime.iso8601(record.time))
            let request = try #require(entry["request"] as? [String: Any])
            #expect(request["method"] as? String == record.method)
            #expect(request["url"] as? String == HARFixtures.baseURL + record.path)
            let response = try #require(entry["response"] as? [String: Any])
            #expect(response["status"] as? Int == record.status ?? 0)
            #expect(response["bodySize"] as? Int == record.bytesSent)
            #expect((entry["time"] as? Double).map { abs($0 - record.duration * 1000) < 0.001 } == true)
        }
    }

    @Test func startedDateTimeIsISO8601WithMillisecondsInUTC() throws {
        let entry = try entry(HARFixtures.segment)
        #expect(entry["startedDateTime"] as? String == "2026-02-25T06:13:20.250Z")
    }

    @Test func timingsAddUpToTime() throws {
        for entry in try entries(document()) {
            let timings = try #require(entry["timings"] as? [String: Double])
            let sum = ["blocked", "dns", "connect", "send", "wait", "receive"].reduce(0.0) { $0 + max(timings[$1] ?? -1, 0) }
            let time = try #require(entry["time"] as? Double)
            #expect(abs(sum - time) < 1e-6, "entry \(entry["_id"] ?? "?"): \(timings) vs \(time)")
            for name in ["send", "wait", "receive"] { #expect(timings[name].map { $0 >= 0 } == true) }
        }
    }

    @Test func aStreamedSegmentShowsTheUpstreamPhases() throws {
        let entry = try entry(HARFixtures.segment)
        let timings = try #require(entry["timings"] as? [String: Double])
        #expect(timings == ["blocked": -1, "dns": -1, "connect": 12, "send": 0, "wait": 40, "receive": 258.5, "ssl": -1])
        #expect(entry["time"] as? Double == 310.5)
        let request = try #require(entry["request"] as? [String: Any])
        #expect(request["httpVersion"] as? String == "HTTP/1.1")
        #expect(request["headersSize"] as? Int == -1)
        #expect(request["bodySize"] as? Int == 0)
        #expect((request["cookies"] as? [Any])?.isEmpty == true)
        #expect(request["headers"] as? [[String: String]] == [
            ["name": "range", "value": "bytes=0-"], ["name": "user-agent", "value": "AppleCoreMedia/1.0"],
        ])
        #expect(request["queryString"] as? [[String: String]] == [["name": "token", "value": "a/b"], ["name": "x", "value": ""]])
        let response = try #require(entry["response"] as? [String: Any])
        #expect(response["statusText"] as? String == "OK")
        #expect(response["redirectURL"] as? String == "")
        #expect(response["headersSize"] as? Int == -1)
        #expect(response["_error"] == nil)
        let content = try #require(response["content"] as? [String: Any])
        #expect(content["size"] as? Int == 1_128_000)
        #expect(content["mimeType"] as? String == "video/mp2t")
        #expect(entry["_fault"] == nil)
        #expect(entry["comment"] == nil)
        let resource = try #require(entry["_resource"] as? [String: Any])
        #expect(Set(resource.keys) == ["kind", "variant", "rendition", "msn", "part", "copy"])
        #expect(resource["kind"] as? String == "segment")
        #expect(resource["variant"] as? Int == 2)
        #expect(resource["msn"] as? Int == 42)
        for unknown in ["rendition", "part", "copy"] { #expect(resource[unknown] is NSNull) }
        let upstream = try #require(entry["_upstream"] as? [String: Any])
        #expect(upstream["url"] as? String == HARFixtures.segment.upstream?.url)
        #expect(upstream["status"] as? Int == 200)
        #expect(upstream["error"] is NSNull)
        #expect(upstream["firstByte"] as? Double == 0.052)
    }

    @Test func anInjected503LooksLikeAFault() throws {
        let entry = try entry(HARFixtures.fault503)
        let response = try #require(entry["response"] as? [String: Any])
        #expect(response["status"] as? Int == 503)
        #expect(response["statusText"] as? String == "Service Unavailable")
        #expect(response["bodySize"] as? Int == 52)
        #expect((response["content"] as? [String: Any])?["mimeType"] as? String == "text/plain; charset=utf-8")
        #expect(response["headers"] as? [[String: String]] == [
            ["name": "content-type", "value": "text/plain; charset=utf-8"],
            ["name": "x-hlschaos-fault", "value": "outage/seg-503"],
        ])
        #expect(response["_error"] == nil)
        let fault = try #require(entry["_fault"] as? [String: Any])
        #expect(fault["rules"] as? [String] == ["outage/seg-503", "outage/log-all"])
        #expect(Self.texts(fault["actions"]) == [["kind": "status", "rule": "outage/seg-503", "status": "503", "words": "status 503"]])
        let deciding = try #require(fault["decidingRules"] as? [String: Any])
        #expect(Set(deciding.keys) == ["response", "delay", "content"])
        #expect(deciding["response"] as? String == "outage/seg-503")
        #expect(deciding["delay"] is NSNull)
        #expect((deciding["content"] as? [Any])?.isEmpty == true)
        #expect(entry["comment"] as? String == "hlschaos: status 503")
        #expect(entry["_upstream"] == nil)
        #expect(entry["_ending"] as? String == "complete")
        // Nothing was fetched: the whole time was spent before the answer.
        let timings = try #require(entry["timings"] as? [String: Double])
        #expect(timings["connect"] == -1)
        #expect(timings["wait"] == 2.1)
        #expect(timings["receive"] == 0)
        #expect(entry["time"] as? Double == 2.1)
    }

    @Test func aHangHasNoStatusAndWaitsTheWholeTime() throws {
        let entry = try entry(HARFixtures.hang)
        let response = try #require(entry["response"] as? [String: Any])
        #expect(response["status"] as? Int == 0)
        #expect(response["statusText"] as? String == "")
        #expect(response["httpVersion"] as? String == "HTTP/1.1")
        #expect((response["headers"] as? [Any])?.isEmpty == true)
        #expect(response["bodySize"] as? Int == 0)
        #expect(response["redirectURL"] as? String == "")
        let content = try #require(response["content"] as? [String: Any])
        #expect(content["size"] as? Int == 0)
        #expect(content["mimeType"] as? String == "x-unknown")
        #expect(response["_error"] as? String == "hang: the request was never answered")
        #expect(entry["_ending"] as? String == "hang")
        #expect(Self.texts((entry["_fault"] as? [String: Any])?["actions"])
            == [["kind": "hang", "rule": "timeouts/master-hang", "seconds": "60", "words": "hang 60s"]])
        let timings = try #require(entry["timings"] as? [String: Double])
        #expect(timings == ["blocked": -1, "dns": -1, "connect": -1, "send": 0, "wait": 10_000.25, "receive": 0, "ssl": -1])
        #expect(entry["time"] as? Double == 10_000.25)
    }

    @Test func aDelayIsBlockedTimeBeforeTheFetch() throws {
        let timings = try #require(try entry(HARFixtures.delayed)["timings"] as? [String: Double])
        // connect 0: libcurl reused the connection.
        #expect(timings == ["blocked": 2000, "dns": -1, "connect": -1, "send": 0, "wait": 30, "receive": 4.5, "ssl": -1])
    }

    @Test func redirectsUpstreamFailuresAndResets() throws {
        let redirect = try #require(try entry(HARFixtures.redirect)["response"] as? [String: Any])
        #expect(redirect["status"] as? Int == 302)
        #expect(redirect["statusText"] as? String == "Found")
        #expect(redirect["redirectURL"] as? String == "/s/tv1/~master/https/cdn2.example.com/master.m3u8")

        let failed = try entry(HARFixtures.badGateway)
        #expect((failed["_upstream"] as? [String: Any])?["error"] as? String == "Couldn't connect to server")
        #expect((failed["_upstream"] as? [String: Any])?["status"] is NSNull)
        #expect((failed["response"] as? [String: Any])?["statusText"] as? String == "Bad Gateway")
        #expect((failed["timings"] as? [String: Double])?["wait"] == 1500)

        let reset = try entry(HARFixtures.reset)
        let response = try #require(reset["response"] as? [String: Any])
        #expect(response["status"] as? Int == 200)
        #expect(response["_error"] as? String == "reset: the connection was reset after 500000 body bytes")
        #expect((reset["_resource"] as? [String: Any])?["copy"] as? String == "backup")
        // The reset came before libcurl's own end: phases are cut to the record's duration.
        #expect(reset["timings"] as? [String: Double] == [
            "blocked": -1, "dns": -1, "connect": 2, "send": 0, "wait": 8, "receive": 90, "ssl": -1,
        ])
    }

    /// Reading our own export gives back the records' actions as data; an export of an older
    /// version, its actions in words, gives them as actions of kind `unknown`.
    @Test func itsActionsReadBackAsData() throws {
        let text = HARDocument.text(records: HARFixtures.all, baseURL: HARFixtures.baseURL, creatorVersion: "1", prettyPrinted: false)
        let log = try HARReader.read(Array(text.utf8), file: "export.har")
        let faulted = HARFixtures.all.sorted(by: RequestRecord.chronological).filter(\.isFaulted)
        #expect(log.entries.filter { !$0.faultActions.isEmpty }.map(\.faultActions) == faulted.map(\.actions))

        let older = text.replacingOccurrences(
            of: #"{"kind":"status","rule":"outage/seg-503","status":503,"words":"status 503"}"#, with: #""status 503""#)
        #expect(older != text)
        let entries = try HARReader.read(Array(older.utf8), file: "older.har").entries
        #expect(entries.contains { $0.faultActions == [.init(.unknown(words: "status 503"), rule: nil)] })
    }

    @Test func theSameRecordsGiveTheSameBytes() throws {
        let first = HARDocument.data(records: HARFixtures.all, baseURL: HARFixtures.baseURL, creatorVersion: "1")
        let second = HARDocument.data(records: HARFixtures.all, baseURL: HARFixtures.baseURL, creatorVersion: "1")
        #expect(first == second)
        // Compact and pretty are the same document.
        func canonical(_ pretty: Bool) throws -> Data {
            try JSONSerialization.data(withJSONObject: document(pretty: pretty), options: [.sortedKeys])
        }
        #expect(try canonical(false) == canonical(true))
        let compact = HARDocument.text(records: [HARFixtures.hang], baseURL: "http://h:1", creatorVersion: "1", prettyPrinted: false)
        #expect(!compact.contains("\n"))
        #expect(compact.hasPrefix(#"{"log":{"version":"1.2","creator":{"name":"hlschaos","version":"1"},"pages":[],"entries":[{"startedDateTime":"#))
    }

    @Test func fieldsComeInTheSpecsOrder() {
        let text = HARDocument.text(records: [HARFixtures.segment], baseURL: HARFixtures.baseURL, creatorVersion: "1")
        let order = ["\"startedDateTime\"", "\"time\"", "\"request\"", "\"method\"", "\"url\"", "\"queryString\"",
                     "\"response\"", "\"status\"", "\"content\"", "\"redirectURL\"", "\"cache\"", "\"timings\"",
                     "\"blocked\"", "\"receive\"", "\"_id\"", "\"_session\"", "\"_resource\"", "\"_upstream\"", "\"_ending\""]
        let positions = order.map { text.range(of: $0)?.lowerBound }
        #expect(!positions.contains(nil))
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
    }

    @Test func oddTextSurvivesTheRoundTrip() throws {
        var record = HARFixtures.fault503
        record.session = "tv \"1\"\\\u{2028}é"
        record.requestHeaders = [.init("user-agent", "Player/1.0 (\"tab\"\t,\nnewline\u{01}) 🎬")]
        record.path = "/s/tv1/dir with space/ü.ts?q=%E2%9C%93&bad=%ZZ&raw=ü"
        let entry = try entry(record)
        #expect(entry["_session"] as? String == record.session)
        let request = try #require(entry["request"] as? [String: Any])
        #expect((request["headers"] as? [[String: String]])?.first?["value"] == record.requestHeaders[0].value)
        let url = try #require(request["url"] as? String)
        #expect(url == "http://192.168.1.20:8080/s/tv1/dir%20with%20space/%C3%BC.ts?q=%E2%9C%93&bad=%25ZZ&raw=%C3%BC")
        #expect(URL(string: url) != nil)
        #expect(request["queryString"] as? [[String: String]] == [
            ["name": "q", "value": "✓"], ["name": "bad", "value": "%ZZ"], ["name": "raw", "value": "ü"],
        ])
        #expect(HARSpecCheck.problems(in: try document([record])) == [])
    }

    @Test func nonFiniteAndNegativeNumbersStayValid() throws {
        var record = HARFixtures.segment
        record.duration = .nan
        record.bytesSent = -5
        record.upstream?.connect = .infinity
        record.upstream?.firstByte = -3
        record.upstream?.total = .nan
        let document = try document([record])
        #expect(HARSpecCheck.problems(in: document) == [])
        let entry = try #require(try entries(document).first)
        #expect(entry["time"] as? Double == 0)
        #expect((entry["_upstream"] as? [String: Any])?["total"] is NSNull)
        #expect((entry["response"] as? [String: Any])?["bodySize"] as? Int == 0)
    }

    @Test func theCheckerCatchesWhatTheSpecForbids() throws {
        var document = try document([HARFixtures.segment])
        var log = try #require(document["log"] as? [String: Any])
        var entry = try #require((log["entries"] as? [[String: Any]])?.first)
        entry["time"] = 1
        entry["made_up"] = true
        var response = try #require(entry["response"] as? [String: Any])
        response["redirectURL"] = nil
        entry["response"] = response
        var timings = try #require(entry["timings"] as? [String: Any])
        timings["wait"] = -1
        entry["timings"] = timings
        entry["startedDateTime"] = "yesterday"
        log["entries"] = [entry]
        log["creator"] = ["name": "x"]
        document["log"] = log
        let problems = HARSpecCheck.problems(in: document)
        #expect(problems.contains("log.creator: missing version"))
        #expect(problems.contains("log.entries[0].response: missing redirectURL"))
        #expect(problems.contains("log.entries[0].timings.wait: -1.0 is negative"))
        #expect(problems.contains("log.entries[0]: unknown field made_up (custom fields start with _)"))
        #expect(problems.contains("log.entries[0].startedDateTime: not ISO 8601: yesterday"))
        #expect(problems.contains { $0.hasPrefix("log.entries[0].time: 1.0 is not the sum of the timings") })
    }
}

/// The HAR 1.2 spec's required fields, types and rules, checked on a parsed document
/// (http://www.softwareishard.com/blog/har-12-spec/; the field lists match the har-schema JSON
/// schemas used by har-validator). Returns one line per problem, none for a conforming HAR.
enum HARSpecCheck {
    enum Kind { case string, number, integer, object, array }
    typealias Fields = [String: Kind]

    static func problems(in document: Any) -> [String] {
        var problems: [String] = []
        guard let root = document as? [String: Any] else { return ["root: not an object"] }
        guard let log = object(root, "log", at: "", required: true, &problems) else { return problems }
        check(log, at: "log", required: ["version": .string, "creator": .object, "entries": .array],
              optional: ["browser": .object, "pages": .array, "comment": .string], &problems)
        for name in ["creator", "browser"] {
            if let creator = log[name] as? [String: Any] {
                check(creator, at: "log.\(name)", required: ["name": .string, "version": .string],
                      optional: ["comment": .string], &problems)
            }
        }
        var pageIDs: Set<String> = []
        for (index, page) in objects(log["pages"], at: "log.pages", &problems).enumerated() {
            let path = "log.pages[\(index)]"
            check(page, at: path, required: ["startedDateTime": .string, "id": .string, "title": .string, "pageTimings": .object],
                  optional: ["comment": .string], &problems)
            dateTime(page["startedDateTime"], at: path, &problems)
            if let id = page["id"] as? String, !pageIDs.insert(id).inserted { problems.append("\(path).id: \(id) is not unique") }
            if let timings = page["pageTimings"] as? [String: Any] {
                check(timings, at: "\(path).pageTimings", required: [:],
                      optional: ["onContentLoad": .number, "onLoad": .number, "comment": .string], &problems)
            }
        }
        for (index, entry) in objects(log["entries"], at: "log.entries", &problems).enumerated() {
            self.entry(entry, at: "log.entries[\(index)]", pageIDs: pageIDs, &problems)
        }
        return problems
    }

    static func entry(_ entry: [String: Any], at path: String, pageIDs: Set<String>, _ problems: inout [String]) {
        check(entry, at: path,
              required: ["startedDateTime": .string, "time": .number, "request": .object, "response": .object,
                         "cache": .object, "timings": .object],
              optional: ["pageref": .string, "serverIPAddress": .string, "connection": .string, "comment": .string], &problems)
        dateTime(entry["startedDateTime"], at: path, &problems)
        if let pageref = entry["pageref"] as? String, !pageIDs.contains(pageref) {
            problems.append("\(path).pageref: no page \(pageref)")
        }
        if let request = entry["request"] as? [String: Any] {
            check(request, at: "\(path).request",
                  required: ["method": .string, "url": .string, "httpVersion": .string, "cookies": .array, "headers": .array,
                             "queryString": .array, "headersSize": .integer, "bodySize": .integer],
                  optional: ["postData": .object, "comment": .string], &problems)
            if let url = request["url"] as? String {
                let absolute = (url.hasPrefix("http://") || url.hasPrefix("https://")) && URL(string: url)?.host != nil
                if !absolute || url.contains("#") { problems.append("\(path).request.url: not an absolute URL without fragment: \(url)") }
            }
            pairs(request, ["cookies", "headers", "queryString"], at: "\(path).request", &problems)
        }
        if let response = entry["response"] as? [String: Any] {
            check(response, at: "\(path).response",
                  required: ["status": .integer, "statusText": .string, "httpVersion": .string, "cookies": .array,
                             "headers": .array, "content": .object, "redirectURL": .string, "headersSize": .integer,
                             "bodySize": .integer],
                  optional: ["comment": .string], &problems)
            pairs(response, ["cookies", "headers"], at: "\(path).response", &problems)
            if let content = response["content"] as? [String: Any] {
                check(content, at: "\(path).response.content", required: ["size": .integer, "mimeType": .string],
                      optional: ["compression": .integer, "text": .string, "encoding": .string, "comment": .string], &problems)
            }
        }
        if let cache = entry["cache"] as? [String: Any] {
            check(cache, at: "\(path).cache", required: [:],
                  optional: ["comment": .string], &problems, allowing: ["beforeRequest", "afterRequest"])
        }
        guard let timings = entry["timings"] as? [String: Any] else { return }
        let phases: Fields = ["blocked": .number, "dns": .number, "connect": .number, "ssl": .number, "comment": .string]
        check(timings, at: "\(path).timings", required: ["send": .number, "wait": .number, "receive": .number],
              optional: phases, &problems)
        var sum = 0.0
        for name in ["blocked", "dns", "connect", "send", "wait", "receive", "ssl"] {
            guard let value = (timings[name] as? NSNumber)?.doubleValue else { continue }
            if ["send", "wait", "receive"].contains(name), value < 0 {
                problems.append("\(path).timings.\(name): \(value) is negative")
            } else if value < -1 {
                problems.append("\(path).timings.\(name): \(value) is below -1")
            }
            if name != "ssl", value >= 0 { sum += value }
        }
        if let time = (entry["time"] as? NSNumber)?.doubleValue {
            if time < 0 { problems.append("\(path).time: \(time) is negative") }
            if abs(time - sum) > 1e-6 { problems.append("\(path).time: \(time) is not the sum of the timings (\(sum))") }
        }
    }

    /// Name/value lists: headers, query parameters, cookies.
    static func pairs(_ parent: [String: Any], _ names: [String], at path: String, _ problems: inout [String]) {
        for name in names {
            for (index, item) in objects(parent[name], at: "\(path).\(name)", &problems).enumerated() {
                let optional: Fields = name == "cookies"
                    ? ["path": .string, "domain": .string, "expires": .string, "comment": .string]
                    : ["comment": .string]
                check(item, at: "\(path).\(name)[\(index)]", required: ["name": .string, "value": .string],
                      optional: optional, &problems, allowing: name == "cookies" ? ["httpOnly", "secure"] : [])
            }
        }
    }

    static func check(
        _ object: [String: Any], at path: String, required: Fields, optional: Fields, _ problems: inout [String],
        allowing others: Set<String> = []
    ) {
        for (name, kind) in required.sorted(by: { $0.key < $1.key }) {
            guard let value = object[name] else { problems.append("\(path): missing \(name)"); continue }
            if !matches(value, kind) { problems.append("\(path).\(name): not \(kind)") }
        }
        for (name, kind) in optional.sorted(by: { $0.key < $1.key }) {
            if let value = object[name], !matches(value, kind) { problems.append("\(path).\(name): not \(kind)") }
        }
        for name in object.keys.sorted() where required[name] == nil && optional[name] == nil && !others.contains(name) {
            if !name.hasPrefix("_") { problems.append("\(path): unknown field \(name) (custom fields start with _)") }
        }
    }

    static func matches(_ value: Any, _ kind: Kind) -> Bool {
        switch kind {
        case .string: return value is String
        case .object: return value is [String: Any]
        case .array: return value is [Any]
        case .number:
            guard !(value is String), let number = value as? NSNumber else { return false }
            return number.doubleValue.isFinite
        case .integer:
            guard !(value is String), let number = value as? NSNumber else { return false }
            return number.doubleValue == number.doubleValue.rounded()
        }
    }

    static func object(_ parent: [String: Any], _ name: String, at path: String, required: Bool, _ problems: inout [String]) -> [String: Any]? {
        guard let value = parent[name] else {
            if required { problems.append("\(path.isEmpty ? "root" : path): missing \(name)") }
            return nil
        }
        guard let object = value as? [String: Any] else { problems.append("\(path)\(name): not an object"); return nil }
        return object
    }

    static func objects(_ value: Any?, at path: String, _ problems: inout [String]) -> [[String: Any]] {
        guard let items = value as? [Any] else { return [] }
        return items.enumerated().compactMap { index, item in
            guard let object = item as? [String: Any] else { problems.append("\(path)[\(index)]: not an object"); return nil }
            return object
        }
    }

    /// ISO 8601 date and time with a time zone, as har-schema's pattern has it.
    static func dateTime(_ value: Any?, at path: String, _ problems: inout [String]) {
        guard let text = value as? String else { return }
        let pattern = #"^\d{4}-?\d\d-?\d\dT?\d\d:?\d\d:?\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)$"#
        if text.range(of: pattern, options: .regularExpression) == nil {
            problems.append("\(path).startedDateTime: not ISO 8601: \(text)")
        }
    }
}
