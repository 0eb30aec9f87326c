import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C on `hlschaos run` (and `matrix`, which shares the same wrapper) stops the players it
/// started: they run in process groups of their own, which a terminal's SIGINT does not reach.
@Suite struct RunInterruptTests {
    @Test func sigintStopsThePlayerInProgressWritesNothingAndExits130() async throws {
        try await withTemporaryFolder("cli-interrupt") { folder in
            let pidFile = folder.path("player.pid")
            // A player that never ends by itself: it says who it is, then waits.
            let player = try folder.file("player.sh", "#!/bin/sh\necho $$ > '\(pidFile)'\nexec sleep 300\n")
            chmod(player, 0o755)
            let junit = folder.path("junit.xml")
            let run = CLI.Running([
                "run", "status-503", "--player", "\(player) {url}", "--timeout", "120s",
                "--evidence", folder.path("evidence"), "--junit", junit,
            ])
            try run.start()
            #expect(await eventually(timeout: .seconds(60)) { Self.readPID(pidFile) != nil }, "the player never started")
            let pid = try #require(Self.readPID(pidFile))

            run.signal(SIGINT)
            let result = await run.wait(timeout: 30)
            #expect(result.status == 130)
            #expect(result.stderr.contains("hlschaos run: SIGINT: stopping the players in progress"))
            #expect(result.stderr.contains("hlschaos run: interrupted"))
            #expect(!FileManager.default.fileExists(atPath: junit), "an interrupted run writes no verdict")
            // The player was a child of hlschaos, reaped before it exited: no process of that id is left.
            #expect(kill(pid, 0) == -1 && errno == ESRCH, "the player (pid \(pid)) is still running")
        }
    }

    private static func readPID(_ path: String) -> pid_t? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
