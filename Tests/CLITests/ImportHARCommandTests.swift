import Foundation
import Testing
import TestSupport

/// `hlschaos import-har` as a user runs it: a good HAR gives a scenario that `hlschaos validate`
/// accepts and a bundle, a second run into the same folder refuses, a bad HAR is exit 1 with the
/// file and JSON path.
@Suite struct ImportHARCommandTests {
    static let master = "#EXTM3U\\n#EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=640x360\\nv0/index.m3u8\\n#EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=1280x720\\nv1/index.m3u8\\n"
    static let media = "#EXTM3U\\n#EXT-X-TARGETDURATION:4\\n#EXT-X-MEDIA-SEQUENCE:40\\n#EXTINF:4,\\nseg40.ts\\n#EXTINF:4,\\nseg41.ts\\n#EXTINF:4,\\nseg42.ts\\n"

    static func entry(_ url: String, at second: Int, status: Int = 200, text: String? = nil) -> String {
        let content = text.map { #"{"size": 10, "mimeType": "application/vnd.apple.mpegurl", "text": "\#($0)"}"# }
            ?? #"{"size": 1000, "mimeType": "video/mp2t"}"#
        return #"""
            {"startedDateTime": "2026-11-23T20:14:0\#(second).000Z", "time": 12,
             "request": {"method": "GET", "url": "https://cdn.example/live/\#(url)", "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
             "response": {"status": \#(status), "statusText": "", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [], "content": \#(content), "redirectURL": "", "headersSize": -1, "bodySize": -1},
             "cache": {}, "timings": {"blocked": 1, "dns": -1, "connect": -1, "send": 0, "wait": 10, "receive": 1, "ssl": -1}}
            """#
    }

    static let good = #"{"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "pages": [], "entries": ["#
        + [entry("master.m3u8", at: 0, text: master), entry("v1/index.m3u8", at: 1, text: media), entry("v1/seg40.ts", at: 2),
           entry("v1/seg41.ts", at: 3, status: 503), entry("v1/seg41.ts", at: 4), entry("v1/seg42.ts", at: 5)].joined(separator: ",")
        + "]}}"

    @Test func aGoodHARGivesAValidScenarioAndABundleAndIsNeverWrittenOver() async throws {
        try await withTemporaryFolder("cli-har") { folder in
            let directory = folder.url
            let har = directory.appendingPathComponent("tv.har").path
            try Data(Self.good.utf8).write(to: URL(fileURLWithPath: har))
            let out = directory.appendingPathComponent("out").path

            let result = try await CLI.run(["import-har", har, "--out", out])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Reproduced in \(out)/scenario.json (scenario \"har-tv\", 1 rule, valid):"), "\(result.stdout)")
            #expect(result.stdout.contains("  seg-v1-msn41-503-first-request\n"), "\(result.stdout)")
            #expect(result.stdout.contains("Bundle: \(out)/bundle: 6 exchanges, 2 bodies"), "\(result.stdout)")
            #expect(result.stdout.contains("bodies: 4 of 6 responses have no body in the HAR"), "\(result.stdout)")

            let validate = try await CLI.run(["validate", out + "/scenario.json"])
            #expect(validate.status == 0 && validate.stdout.contains("ok (har-tv, 1 rule)"), "\(validate.stdout)")

            let again = try await CLI.run(["import-har", har, "--out", out])
            #expect(again.status == 1)
            #expect(again.stderr == "error: \(out): already exists and is not empty (bundle, link.csv, scenario.json): import-har never overwrites; choose a new --out or remove it\n")
        }
    }

    @Test func aBadHARIsExitCode1WithTheFileAndTheJSONPath() async throws {
        try await withTemporaryFolder("cli-har") { folder in
            let directory = folder.url
            let bad = directory.appendingPathComponent("bad.har").path
            try Data(#"{"log": {"entries": [{"startedDateTime": "2026-11-23T20:14:00Z", "request": {"method": "GET"}, "response": {"status": 200}}]}}"#.utf8)
                .write(to: URL(fileURLWithPath: bad))
            let result = try await CLI.run(["import-har", bad, "--out", directory.appendingPathComponent("out").path])
            #expect(result.status == 1)
            #expect(result.stderr == "error: \(bad): log.entries[0].request.url: is missing: each request needs its URL\n")
            #expect(result.stdout.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out").path), "nothing written for a bad HAR")

            let notJSON = directory.appendingPathComponent("page.har").path
            try Data("<html></html>".utf8).write(to: URL(fileURLWithPath: notJSON))
            let second = try await CLI.run(["import-har", notJSON, "--out", directory.appendingPathComponent("out2").path])
            #expect(second.status == 1)
            #expect(second.stderr.hasPrefix("error: \(notJSON): is not JSON, so not a HAR: invalid JSON at line 1, column 1"), "\(second.stderr)")
        }
    }
}
