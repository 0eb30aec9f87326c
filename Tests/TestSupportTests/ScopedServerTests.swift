import Foundation
import NIOConcurrencyHelpers
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The scoped forms tests start their servers with: what a body started is stopped before the
/// scope ends, whether the body returned or threw.
@Suite struct ScopedServerTests {
    struct Thrown: Error, Equatable {}

    final class Server: Sendable {
        let stops = NIOLockedValueBox(0)
        func stop() { stops.withLockedValue { $0 += 1 } }
    }

    @Test func aBodyThatThrowsStillStopsWhatItStartedOnceAndTheErrorComesThrough() async throws {
        let server = Server()
        await #expect(throws: Thrown.self) {
            try await withStarted({ server }, stop: { $0.stop() }) { _ in throw Thrown() }
        }
        #expect(server.stops.withLockedValue { $0 } == 1)
    }

    @Test func aBodyThatReturnsStopsOnceAndHandsOnItsResult() async throws {
        let server = Server()
        let answer = try await withStarted({ server }, stop: { $0.stop() }) { started in
            #expect(started.stops.withLockedValue { $0 } == 0, "not stopped while the body runs")
            return 42
        }
        #expect(answer == 42)
        #expect(server.stops.withLockedValue { $0 } == 1)
    }

    @Test func aStartThatThrowsRunsNeitherBodyNorStop() async throws {
        let server = Server()
        await #expect(throws: Thrown.self) {
            try await withStarted({ () async throws -> Server in throw Thrown() }, stop: { _ in server.stop() }) { _ in
                Issue.record("the body ran without a server")
            }
        }
        #expect(server.stops.withLockedValue { $0 } == 0)
    }

    /// A start made of steps: the second fails, the first is stopped, the error comes through.
    @Test func aStartStepThatThrowsRollsBackTheStepsBeforeIt() async throws {
        let first = Server()
        await #expect(throws: Thrown.self) {
            try await withRollback({ first.stop() }) { () async throws -> Server in throw Thrown() }
        }
        #expect(first.stops.withLockedValue { $0 } == 1)
        let started = try await withRollback({ first.stop() }) { Server() }
        #expect(first.stops.withLockedValue { $0 } == 1, "nothing is rolled back after a start that succeeded")
        #expect(started.stops.withLockedValue { $0 } == 0)
    }

    @Test func aTestOriginIsClosedAfterItsScopeThrows() async throws {
        let port = NIOLockedValueBox(0)
        await #expect(throws: Thrown.self) {
            try await TestOrigin.with { origin in
                origin.route("/a", .bytes(body: [1]))
                port.withLockedValue { $0 = origin.port }
                #expect(try await RawHTTP.get(port: origin.port, "/a").status == 200)
                throw Thrown()
            }
        }
        try await Self.expectGone(port: port.withLockedValue { $0 }, path: "/a")
    }

    /// A test that stops its origin itself (to see what happens when it goes away) ends its scope
    /// without an error from the second stop.
    @Test func aTestOriginStoppedInsideItsScopeStopsAgainQuietly() async throws {
        let closedPort = try await TestOrigin.with { origin in
            origin.route("/only-here", .bytes(body: [1]))
            try await origin.shutdown()
            return origin.port
        }
        try await Self.expectGone(port: closedPort, path: "/only-here")
    }

    /// The origin that listened on `port` answers no more: the port refuses connections, or (when a
    /// server another test started in the meantime was given the same port) what answers there does
    /// not serve the origin's `path`.
    static func expectGone(port: Int, path: String) async throws {
        let answer = try await RawHTTP.run { () -> String in
            let connection: RawHTTPConnection
            do {
                connection = try RawHTTPConnection(port: port, readTimeout: 5)
            } catch RawHTTPConnection.Failure.connect(ECONNREFUSED) {
                return "refused"
            }
            defer { connection.close() }
            return (try? connection.request("GET", path)).map { "status \($0.status)" } ?? "no answer"
        }
        #expect(answer != "status 200", "port \(port) still serves \(path)")
    }
}
