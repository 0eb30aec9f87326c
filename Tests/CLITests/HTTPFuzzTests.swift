import Foundation
import Testing
import TestSupport

/// Runs `scripts/fuzz-http.py` (a seeded HTTP/1.1 request fuzzer, Python standard library only)
/// against the built `hlschaos demo --forward` for about 45 s, forward-proxy cases included. The fuzzer checks that the process never dies,
/// that every response is well-formed HTTP/1.1 and that every request gets exactly one response;
/// it exits 0 when it found nothing, 1 with findings (seed, exact bytes, what broke), 2 when it
/// could not run. `scripts/fuzz-http.sh` runs the same fuzzer for 30 minutes on a release build.
@Suite(.serialized) struct HTTPFuzzTests {
    static let seed = 20_240_611
    static let seconds = 45

    @Test(
        .timeLimit(.minutes(3)))
    func fortyFiveSecondsOfMalformedRequestsFindNothing() async throws {
        let script = CLI.repository.appendingPathComponent("scripts/fuzz-http.py").path
        // Removed when the fuzzer finds nothing; kept on a failure, which names the findings in it.
        let folder = try TemporaryFolder("fuzz-http")
        let out = folder.url("findings")
        let result = try await FuzzProcess.run(
            "/usr/bin/env",
            ["python3", script, "--binary", CLI.binary, "--seconds", String(Self.seconds), "--seed", String(Self.seed),
             "--workers", "16", "--out", out.path],
            timeout: TimeInterval(Self.seconds + 75))
        #expect(result.status != 2, "fuzz-http.py could not run:\n\(result.stderr)\n\(result.stdout)")
        #expect(
            result.status == 0,
            """
            fuzz-http.py (seed \(Self.seed)) exited \(result.status)\(result.timedOut ? " (killed: it did not stop by itself)" : "");
            findings and proxy logs are in \(out.path); replay one with
              python3 scripts/fuzz-http.py --binary \(CLI.binary) --replay \(out.path)/finding-001.json
            \(result.stdout)
            \(result.stderr.split(separator: "\n").suffix(40).joined(separator: "\n"))
            """)
        if result.status == 0 { folder.remove() }
    }
}

/// A child process whose output is collected as it arrives (the fuzzer prints a lot on failure,
/// more than a pipe buffer holds).
private enum FuzzProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var timedOut: Bool
    }

    static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = CLI.repository
        process.standardInput = FileHandle.nullDevice
        let out = OutputCollector(), err = OutputCollector()
        process.standardOutput = out.pipe
        process.standardError = err.pipe
        try process.run()
        let timedOut = await !eventually(timeout: .seconds(timeout), interval: .milliseconds(200)) { !process.isRunning }
        if timedOut {
            // SIGINT first (the fuzzer reports what it found so far), SIGTERM after 3 s.
            process.interrupt()
            if await !eventually(timeout: .seconds(3), { !process.isRunning }) { process.terminate() }
        }
        process.waitUntilExit()
        await out.waitForEnd()
        await err.waitForEnd()
        return Result(status: process.terminationStatus, stdout: out.text, stderr: err.text, timedOut: timedOut)
    }
}
