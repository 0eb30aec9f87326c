import Foundation
import Testing
import TestSupport

/// A shutdown ends: in-flight responses get `shutdownTimeout` to finish, a second signal exits at once.
@Suite struct ShutdownTests {
    /// Waits up to `seconds` for the process to exit; kills it (and reports) if it did not.
    static func exited(_ proxy: CLI.Running, within seconds: Double) async -> Bool {
        if await !eventually(timeout: .seconds(seconds), { !proxy.process.isRunning }) {
            kill(proxy.process.processIdentifier, SIGKILL)
            proxy.process.waitUntilExit()
            return false
        }
        return true
    }

    /// A proxy whose only request is in flight for as long as the test lasts: its origin holds the
    /// response head 10 minutes (and the proxy waits as long). Returns once the request has
    /// reached the origin.
    static func startWithARequestInFlight(shutdownTimeout: String, origin: TestOrigin) async throws -> (CLI.Running, Task<RawHTTPConnection.Response, any Error>) {
        origin.route("/a.ts", .delayedHeaders(.seconds(600), then: .generated(size: 1000)))
        // The configuration file is read at start-up; it is gone once the proxy listens.
        let proxy = try await withTemporaryFolder("config") { folder in
            let config = try folder.file("config.json", #"{"shutdownTimeout": "\#(shutdownTimeout)", "firstByteTimeout": "10m"}"#)
            let proxy = CLI.Running(["serve", "--config", config, "--upstream", origin.baseURL, "--host", "127.0.0.1", "--port", "0"])
            try proxy.start()
            #expect(await proxy.waitForOutput(containing: "listening"))
            return proxy
        }
        let port = try #require(await proxy.port(after: "hlschaos listening on 127.0.0.1:"))
        let inFlight = Task { try await RawHTTP.get(port: port, "/a.ts", readTimeout: 60) }
        try #require(await origin.waitUntil { $0.requestLog.count == 1 }, "the request never reached the origin")
        return (proxy, inFlight)
    }

    @Test func aResponseInFlightDelaysShutdownByTheDrainTimeOnly() async throws {
        let started = Date()
        try await TestOrigin.with { origin in
            let (proxy, hanging) = try await Self.startWithARequestInFlight(shutdownTimeout: "1s", origin: origin)
            proxy.signal(SIGTERM)
            #expect(await Self.exited(proxy, within: 40), "SIGTERM with a response in flight must end the process")
            if let response = try? await hanging.value {
                Issue.record("the hanging request got a response: \(response.status)")
            }
            #expect(Date().timeIntervalSince(started) < 50, "the drain lasts 1 s, the response 10 minutes")
            #expect(proxy.process.terminationStatus == 0)
            #expect(proxy.stderr.contains("still busy after 1s"), "\(proxy.stderr)")
        }
    }

    @Test func aSecondSignalExitsAtOnce() async throws {
        // A long drain: only the second signal can end this before the 10 minutes.
        try await TestOrigin.with { origin in
            let (proxy, hanging) = try await Self.startWithARequestInFlight(shutdownTimeout: "10m", origin: origin)
            proxy.signal(SIGINT)
            #expect(await proxy.waitForOutput(containing: "again to exit now"))
            proxy.signal(SIGINT)
            #expect(await Self.exited(proxy, within: 60), "a second Ctrl-C must exit")
            #expect(proxy.process.terminationStatus == 130)
            #expect(proxy.stderr.contains("second SIGINT: exiting now"))
            _ = try? await hanging.value
        }
    }
}
