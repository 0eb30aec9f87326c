import Foundation
import Testing
import TestSupport

/// A real player through the proxy while the control API changes its session's scenario: what the
/// player receives changes on its next request, and nothing in flight breaks.
/// (Named …PlayerTests so `scripts/test.sh` runs it with the other player suites, away from CPU-heavy
/// unit tests.)
@Suite(.serialized) struct ControlPlayerTests {
    static let ffmpeg = executable("ffmpeg")

    @Test(.enabled(if: ffmpeg != nil))
    func aScenarioPutWhileFFmpegPlaysChangesWhatItReceives() async throws {
        try await ControlHarness.with { harness in
            let api = harness.api
            #expect(try await api.send("POST", "/api/sessions", json: #"{"id": "ff"}"#).status == 201)
            let player = try BackgroundProcess(try #require(Self.ffmpeg), [
                "-hide_banner", "-nostdin", "-v", "warning", "-i", "http://127.0.0.1:\(harness.proxyPort)/s/ff/live/ts/master.m3u8",
                "-t", "60", "-map", "0:v:0", "-f", "null", "-",
            ])
            defer { player.terminate() }

            func segments() async throws -> [[String: Any]] {
                let page = try await api.get("/api/sessions/ff/events?limit=10000")
                return ((page.object?["records"] as? [[String: Any]]) ?? []).filter { $0["kind"] as? String == "segment" }
            }
            // Playing cleanly first.
            try await waitUntil(seconds: 30) { ((try? await segments()) ?? []).count >= 2 }
            let before = try await segments()
            // ffmpeg asks for segments with a Range: 206.
            #expect(before.allSatisfy { [200, 206].contains($0["status"] as? Int) && ($0["actions"] as? [String])?.isEmpty == true })
            let lastBefore = before.compactMap { $0["id"] as? Int }.max() ?? 0

            // Every further segment of this session answers 503.
            let scenario = #"{"name": "api-segments-503", "rules": [{"id": "seg", "match": {"kind": "segment"}, "action": {"status": 503}}]}"#
            let put = try await api.send("PUT", "/api/sessions/ff/rules", json: scenario)
            #expect(put.status == 200, "\(put.text)")
            try await waitUntil(seconds: 30) {
                ((try? await segments()) ?? []).filter { ($0["id"] as? Int ?? 0) > lastBefore && $0["status"] as? Int == 503 }.count >= 2
            }
            let during = try await segments().filter { ($0["id"] as? Int ?? 0) > lastBefore }
            let faulted = during.filter { $0["status"] as? Int == 503 }
            #expect(faulted.count >= 2)
            #expect(faulted.allSatisfy { ($0["matchedRules"] as? [String]) == ["api-segments-503/seg"] })
            #expect(during.allSatisfy { $0["ending"] as? String == "complete" }, "nothing in flight broke")
            let lastFaulted = faulted.compactMap { $0["id"] as? Int }.max() ?? 0

            // Cleared: segments load again, and the player is still playing.
            #expect(try await api.delete("/api/sessions/ff/rules").status == 200)
            try await waitUntil(seconds: 30) {
                ((try? await segments()) ?? []).contains { ($0["id"] as? Int ?? 0) > lastFaulted && [200, 206].contains($0["status"] as? Int) }
            }
            #expect(player.isRunning, "ffmpeg stopped: \(player.stderr)")
            player.terminate()
            #expect(player.stderr.contains("503") || player.stderr.contains("Failed to open segment"), "ffmpeg said: \(player.stderr)")
        }
    }
}

/// A child process whose stdout and stderr are collected while it runs.
final class BackgroundProcess: @unchecked Sendable {
    private let process = Process()
    private let out = OutputCollector()
    private let err = OutputCollector()

    init(_ executable: String, _ arguments: [String], directory: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out.pipe
        process.standardError = err.pipe
        try process.run()
    }

    var isRunning: Bool { process.isRunning }
    var stdout: String { out.text }
    var stderr: String { err.text }

    /// Waits (without blocking a thread) until it exits; its exit status, or nil when it was still
    /// running after `seconds` (it is then killed).
    func wait(seconds: Double) async throws -> Int32? {
        guard await eventually(timeout: .seconds(seconds), { !process.isRunning }) else {
            terminate()
            return nil
        }
        process.waitUntilExit()
        await out.waitForEnd()
        await err.waitForEnd()
        return process.terminationStatus
    }

    /// Stops it now (SIGKILL: ffmpeg waiting on a live playlist takes its time over SIGTERM).
    func terminate() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// Path of a tool on PATH, or nil.
func executable(_ tool: String) -> String? {
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let path = "\(directory)/\(tool)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}
