import Foundation
import Testing
import TestSupport

/// A shutdown ends: in-flight responses get `shutdownTimeout` to finish, a second signal exits at once.
@Suite struct ShutdownTests {
    static func temporaryFile(_ name: String, _ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hlschaos-\(name)-\(UUID()).json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Waits up to `seconds` for the process to exit; kills it (and reports) if it did not.
    static func exited(_ proxy: CLI.Running, within seconds: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while proxy.process.isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        if proxy.process.isRunning {
            kill(proxy.process.processIdentifier, SIGKILL)
            proxy.process.waitUntilExit()
            return false
        }
        return true
    }

    static func startHanging() async throws -> (CLI.Running, Int, TestOrigin) {
        let origin = try await TestOrigin.start()
        origin.route("/a.ts", .generated(size: 1000))
        let rules = try temporaryFile("hang", #"{"name": "hang", "description": "hang", "rules": [{"id": "h", "match": {"kind": "segment"}, "action": {"hang": true}}]}"#)
        let config = try temporaryFile("config", #"{"shutdownTimeout": "1s"}"#)
        let proxy = CLI.Running(["serve", "--config", config, "--upstream", origin.baseURL, "--host", "127.0.0.1", "--port", "0", "--rules", rules])
        try proxy.start()
        #expect(await proxy.waitForOutput(containing: "listening"))
        let port = try #require(await proxy.port(after: "hlschaos listening on 127.0.0.1:"))
        return (proxy, port, origin)
    }

    @Test func aHangInFlightDelaysShutdownByTheDrainTimeOnly() async throws {
        let (proxy, port, origin) = try await Self.startHanging()
        let started = Date()
        async let hanging = RawHTTP.get(port: port, "/a.ts", readTimeout: 30)
        try await Task.sleep(for: .milliseconds(500))
        proxy.signal(SIGTERM)
        #expect(await Self.exited(proxy, within: 20), "SIGTERM with a hang in flight must end the process")
        if let response = try? await hanging {
            Issue.record("the hanging request got a response: \(response.status)")
        }
        #expect(Date().timeIntervalSince(started) < 25)
        #expect(proxy.process.terminationStatus == 0)
        #expect(proxy.stderr.contains("still busy after 1s"), "\(proxy.stderr)")
        try await origin.shutdown()
    }

    @Test func aSecondSignalExitsAtOnce() async throws {
        let rules = try Self.temporaryFile("hang", #"{"name": "hang", "description": "hang", "rules": [{"id": "h", "match": {"kind": "segment"}, "action": {"hang": true}}]}"#)
        let origin = try await TestOrigin.start()
        // A long drain: only the second signal can end this quickly.
        let config = try Self.temporaryFile("config", #"{"shutdownTimeout": "10m"}"#)
        let proxy = CLI.Running(["serve", "--config", config, "--upstream", origin.baseURL, "--host", "127.0.0.1", "--port", "0", "--rules", rules])
        try proxy.start()
        #expect(await proxy.waitForOutput(containing: "listening"))
        let port = try #require(await proxy.port(after: "hlschaos listening on 127.0.0.1:"))
        async let hanging = RawHTTP.get(port: port, "/a.ts", readTimeout: 30)
        try await Task.sleep(for: .milliseconds(500))
        proxy.signal(SIGINT)
        #expect(await proxy.waitForOutput(containing: "again to exit now"))
        proxy.signal(SIGINT)
        #expect(await Self.exited(proxy, within: 10), "a second Ctrl-C must exit")
        #expect(proxy.process.terminationStatus == 130)
        #expect(proxy.stderr.contains("second SIGINT: exiting now"))
        _ = try? await hanging
        try await origin.shutdown()
    }
}
