import Foundation
import Testing
import TestSupport
@testable import Players

@Suite struct ProcessRunnerTests {
    @Test func collectsOutputAndExitStatus() async throws {
        let result = try await ProcessRunner.run(.init("sh", ["-c", "echo out; echo err >&2; exit 3"], timeout: 10))
        #expect(result.status == 3)
        #expect(result.stdout == "out\n")
        #expect(result.stderr == "err\n")
        #expect(!result.timedOut)
    }

    /// The watchdog ends the whole group: a grandchild that ignores nothing and sleeps is gone too.
    @Test func watchdogStopsTheWholeProcessGroup() async throws {
        try await withTemporaryFolder("pid") { folder in
            let marker = folder.path("pid")
            let result = try await ProcessRunner.run(.init("sh", ["-c", "sleep 30 & echo $! > \(marker); wait"], timeout: 1))
            #expect(result.timedOut)
            #expect(result.seconds < 20, "stopped by the 1 s watchdog, not at the end of its 30 s")
            let grandchild = try #require(Int32(try String(contentsOfFile: marker, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(kill(grandchild, 0) != 0, "the grandchild \(grandchild) still runs")
        }
    }

    @Test func aChildThatIgnoresSIGTERMIsKilled() async throws {
        let result = try await ProcessRunner.run(.init("sh", ["-c", "trap '' TERM; sleep 30"], timeout: 1))
        #expect(result.timedOut)
        #expect(result.seconds < 20, "stopped by the 1 s watchdog, not at the end of its 30 s")
    }

    @Test func cancellingTheTaskStopsTheProcess() async throws {
        try await withTemporaryFolder("pid") { folder in
            let marker = folder.path("pid")
            let started = Date()
            let task = Task { try await ProcessRunner.run(.init("sh", ["-c", "echo $$ > \(marker); exec sleep 30"], timeout: 60)) }
            // Cancelled once it runs (it says its pid), not before it started.
            func pid() -> Int32? {
                (try? String(contentsOfFile: marker, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            }
            #expect(await eventually { pid() != nil }, "the process never started")
            task.cancel()
            _ = try await task.value
            #expect(Date().timeIntervalSince(started) < 20, "stopped, not at the end of its 30 s")
            let process = try #require(pid())
            #expect(kill(process, 0) != 0, "process \(process) still runs")
        }
    }

    @Test func missingExecutableIsAClearError() async throws {
        await #expect(throws: ProcessRunner.LaunchError.self) {
            _ = try await ProcessRunner.run(.init("no-such-player-hlschaos", timeout: 1))
        }
    }
}
