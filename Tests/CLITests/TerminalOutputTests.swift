import Foundation
import Testing
import TestSupport

/// What `serve` prints while devices play: a line per session start and per faulted request (every
/// request with -v), plain text when the output is a pipe.
@Suite struct TerminalOutputTests {
    static func serve(_ extra: [String], in folder: TemporaryFolder, origin: TestOrigin) async throws -> (CLI.Running, Int) {
        origin.route("/a.ts", .generated(size: 5000))
        origin.route("/b.ts", .generated(size: 7000))
        let rules = try folder.file(
            "rules.json", #"{"name": "t", "description": "d", "rules": [{"id": "b503", "match": {"kind": "segment", "session": "tv*"}, "action": {"status": 503}}]}"#)
        let proxy = CLI.Running(["serve", "--upstream", origin.baseURL, "--host", "127.0.0.1", "--port", "0", "--rules", rules] + extra)
        try proxy.start()
        #expect(await proxy.waitForOutput(containing: "listening"))
        let port = try #require(await proxy.port(after: "hlschaos listening on 127.0.0.1:"))
        return (proxy, port)
    }

    @Test func faultsAndSessionStartsArePrintedPlainThroughAPipe() async throws {
        try await withTemporaryFolder("term") { folder in
            try await TestOrigin.with { origin in
                let (proxy, port) = try await Self.serve([], in: folder, origin: origin)
                #expect(try await RawHTTP.get(port: port, "/s/box/a.ts").status == 200)
                #expect(try await RawHTTP.get(port: port, "/s/tv1/b.ts").status == 503)
                #expect(await proxy.waitForOutput(containing: "t/b503"))
                let lines = proxy.stdout.split(separator: "\n")
                #expect(lines.contains { $0.contains("box") && $0.contains("session started from 127.0.0.1") })
                #expect(lines.contains { $0.contains("tv1") && $0.contains("session started") })
                let fault = try #require(lines.first { $0.contains("t/b503") })
                #expect(fault.contains("tv1") && fault.contains("503"))
                #expect(!lines.contains { $0.contains("box") && $0.contains("200") }, "an unfaulted request is not printed without -v")
                #expect(!proxy.stdout.contains("\u{1B}["), "no colour codes through a pipe")
                proxy.signal(SIGTERM)
                _ = await proxy.wait(timeout: 10)
            }
        }
    }

    @Test func verbosePrintsEveryRequest() async throws {
        try await withTemporaryFolder("term") { folder in
            try await TestOrigin.with { origin in
                let (proxy, port) = try await Self.serve(["-v"], in: folder, origin: origin)
                #expect(try await RawHTTP.get(port: port, "/s/box/a.ts").status == 200)
                #expect(await proxy.waitForOutput(containing: "4.9 KB"))
                proxy.signal(SIGTERM)
                _ = await proxy.wait(timeout: 10)
            }
        }
    }
}
