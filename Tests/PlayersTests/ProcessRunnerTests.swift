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

    /// A player gets stdin, stdout and stderr, none of this process's other descriptors: holding a
    /// copy of a proxy's client connection, it would keep that connection open after the proxy
    /// closed it (a cut body's FIN, a reset's RST would not reach the device until it exits).
    @Test func theChildInheritsOnlyItsThreeStreams() async throws {
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        let (ours, peer) = (pair[0], pair[1])
        defer { close(peer) }
        let result = try await ProcessRunner.run(.init("sh", ["-c", "ls /proc/$$/fd"], timeout: 10))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n") == ["0", "1", "2"], "the child had \(result.stdout.split(separator: "\n")) (this process: \(pair) among others)")

        // The consequence a device would see: a connection closed here ends while a child runs.
        try await withTemporaryFolder("started") { folder in
            let marker = folder.path("started")
            let child = Task { try await ProcessRunner.run(.init("sh", ["-c", "echo > \(marker); exec sleep 5"], timeout: 10)) }
            #expect(await eventually { FileManager.default.fileExists(atPath: marker) }, "the child started")
            close(ours)
            var byte: UInt8 = 0
            var wait = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(peer, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            #expect(read(peer, &byte, 1) == 0, "the peer sees the close at once, not when the child exits")
            child.cancel()
            _ = try? await child.value
        }
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
