import Foundation
import Proxy
import Testing
import TestSupport

/// Faults that end a response early, over HTTP/2 on the HTTPS listener: an h2 stream is a request
/// of its own, so a fault ends the stream (`RST_STREAM`), never the connection, and a hang holds
/// one stream while the others on the same connection go on. curl is the client: one process,
/// several transfers on one connection (`num_connects` 0 after the first), each with its own
/// status, bytes and exit code.
@Suite struct HTTP2FaultEndingTests {
    struct Transfer {
        var status: Int
        var bytes: Int
        var connects: Int
        var exitCode: Int
        var seconds: Double
        var version: String
    }

    /// Runs curl on `urls` in one process (sequentially, or all at once with `parallel`).
    static func curl(_ harness: ForwardHarness, _ urls: [String], parallel: Bool = false, maxTime: Int = 60) async throws -> [Transfer] {
        var arguments = ["-sS", "--http2", "--cacert", harness.rootFile, "--max-time", String(maxTime),
                         "-w", "%{http_code} %{size_download} %{num_connects} %{exitcode} %{time_total} %{http_version}\\n"]
        if parallel { arguments += ["--parallel"] }
        for url in urls { arguments += ["-o", "/dev/null", url] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let written = try await RawHTTP.run { out.fileHandleForReading.readAllRetryingInterrupts() }
        process.waitUntilExit()
        return String(decoding: written, as: UTF8.self).split(separator: "\n").map { line in
            let field = line.split(separator: " ").map(String.init)
            return Transfer(
                status: Int(field[0]) ?? 0, bytes: Int(field[1]) ?? -1, connects: Int(field[2]) ?? -1,
                exitCode: Int(field[3]) ?? -1, seconds: Double(field[4]) ?? -1, version: field.count > 5 ? field[5] : "")
        }
    }

    /// The HTTPS listener, a session with `preset` that has read the master (so "highest" is
    /// known), and the URLs of the top variant's segments 7 and 8 in it; stopped after `body`, also
    /// when it throws.
    static func with(
        preset: String, _ body: (ForwardHarness, _ base: String, _ segment7: String, _ segment8: String) async throws -> Void
    ) async throws {
        try await ForwardHarness.with(configure: { $0.https = .init(port: 0) }) { forward in
            let port = try #require(forward.proxy.server.httpsPort)
            let base = "https://localhost:\(port)"
            let session = "/s/h2+\(preset)"
            let master = try await ForwardHarness.curl(["--cacert", forward.rootFile, "--http2", "\(base)\(session)/@plain/vod/ts/master.m3u8"])
            #expect(master.status == 200, "\(master.stderr)")
            let top = "/http/127.0.0.1:\(forward.plainOrigin.port)/vod/ts/v2"
            try await body(forward, base, "\(base)\(session)/~seg.v2.n7\(top)/s007.ts", "\(base)\(session)/~seg.v2.n8\(top)/s008.ts")
        }
    }

    @Test func aResetEndsTheStreamAndTheConnectionCarriesOn() async throws {
        try await Self.with(preset: "reset-mid-segment") { forward, _, segment7, segment8 in
            let transfers = try await Self.curl(forward, [segment7, segment8, segment7])
            try #require(transfers.count == 3)
            let full = transfers[0].bytes
            #expect(transfers[0].exitCode == 0 && transfers[0].status == 200 && transfers[0].version == "2")
            #expect(full > 50_000, "segment 7 is larger than the reset point")
            // reset-mid-segment: 50,000 bytes of segment 8, then RST_STREAM (curl: 92, stream error).
            #expect(transfers[1].status == 200)
            #expect(transfers[1].exitCode == 92, "\(transfers[1])")
            #expect(transfers[1].bytes <= 50_000 && transfers[1].bytes > 0, "\(transfers[1])")
            // The same connection serves the next request in full.
            #expect(transfers[2].exitCode == 0 && transfers[2].bytes == full && transfers[2].connects == 0, "\(transfers[2])")
            let records = forward.proxy.server.control.records(session: "h2")
            #expect(records.contains { $0.msn == 8 && $0.ending == .reset && $0.httpVersion == "HTTP/2" }, "\(records.map { ($0.msn, $0.ending) })")
        }
    }

    @Test func aTruncatedBodyEndsTheStreamShortAndTheConnectionCarriesOn() async throws {
        try await Self.with(preset: "truncated-segment") { forward, _, segment7, segment8 in
            let transfers = try await Self.curl(forward, [segment8, segment7])
            try #require(transfers.count == 2)
            // Half the body, then the stream ends without its promised length: curl reports the stream
            // as not closed cleanly (92) or the transfer as partial (18), never a complete 200.
            #expect(transfers[0].status == 200)
            #expect([18, 92].contains(transfers[0].exitCode), "\(transfers[0])")
            #expect(transfers[1].exitCode == 0 && transfers[1].connects == 0, "\(transfers[1])")
            #expect(transfers[0].bytes > 0 && transfers[0].bytes < transfers[1].bytes, "\(transfers)")
        }
    }

    @Test func aHangHoldsOneStreamWhileTheOthersOnTheConnectionAreAnswered() async throws {
        try await Self.with(preset: "timeout-segment") { forward, _, segment7, segment8 in
            // timeout-segment hangs segment 8 for 60 s; curl gives up on it after 6 s.
            let transfers = try await Self.curl(forward, [segment8, segment7, segment7], parallel: true, maxTime: 6)
            try #require(transfers.count == 3)
            let hung = transfers.filter { $0.exitCode == 28 }
            let answered = transfers.filter { $0.exitCode == 0 }
            #expect(hung.count == 1, "\(transfers)")
            #expect(answered.count == 2 && answered.allSatisfy { $0.status == 200 && $0.seconds < 5 }, "\(transfers)")
            // One connection for all three (curl multiplexes parallel transfers on h2).
            #expect(transfers.map(\.connects).reduce(0, +) == 1, "\(transfers)")
        }
    }
}
