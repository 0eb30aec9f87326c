import Foundation
import Testing
import TestSupport

/// One `hlschaos serve` of several behind a load balancer (docs/scale-out.md): the built binary on
/// loopback ports of its own, its control API read over HTTP as an operator would.
struct FleetInstance: Sendable {
    let running: CLI.Running
    let proxyPort: Int
    let controlPort: Int

    struct StartFailed: Error, CustomStringConvertible {
        var description: String
    }

    static func start(upstream: String) async throws -> FleetInstance {
        let running = CLI.Running([
            "serve", "--upstream", upstream, "--host", "127.0.0.1", "--port", "0", "--control", "127.0.0.1:0",
        ])
        try running.start()
        guard let proxyPort = await running.port(after: "hlschaos listening on 127.0.0.1:"),
            let controlPort = await running.port(after: "control API on http://127.0.0.1:")
        else {
            running.process.terminate()
            throw StartFailed(description: "hlschaos serve did not start: \(running.stderr)")
        }
        return FleetInstance(running: running, proxyPort: proxyPort, controlPort: controlPort)
    }

    func stop() {
        if running.process.isRunning { running.process.terminate() }
        running.process.waitUntilExit()
    }

    /// `PUT /api/rules` with the scenario in `file`, sent by curl as docs/scale-out.md shows it;
    /// the status and body of the answer.
    func putRulesForEverySession(file: String) async throws -> (status: Int, body: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = [
            "-sS", "--max-time", "30", "-w", "\n%{http_code}", "-X", "PUT", "http://127.0.0.1:\(controlPort)/api/rules",
            "-H", "content-type: application/json", "--data-binary", "@\(file)",
        ]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let written = try await RawHTTP.run { out.fileHandleForReading.readAllRetryingInterrupts() }
        process.waitUntilExit()
        let text = String(decoding: written, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    /// `GET /api/sessions`: every session this instance has, with the requests it counted.
    func requestCountsBySession() async throws -> [String: Int] {
        struct Sessions: Decodable {
            struct Session: Decodable { var id: String; var requests: Int }
            var sessions: [Session]
        }
        let response = try await RawHTTP.get(port: controlPort, "/api/sessions")
        try #require(response.status == 200, "GET /api/sessions: \(response.status) \(response.text)")
        let list = try JSONDecoder().decode(Sessions.self, from: Data(response.body))
        return Dictionary(list.sessions.map { ($0.id, $0.requests) }, uniquingKeysWith: { first, _ in first })
    }

    /// `GET /api/sessions/{id}/events`: the session's request records on this instance.
    func records(session: String) async throws -> [RecordFields] {
        struct Page: Decodable { var records: [RecordFields] }
        let response = try await RawHTTP.get(port: controlPort, "/api/sessions/\(session)/events")
        try #require(response.status == 200, "GET /api/sessions/\(session)/events: \(response.status) \(response.text)")
        return try JSONDecoder().decode(Page.self, from: Data(response.body)).records
    }

    /// The fields of a request record (docs/records.md) the scale-out test compares.
    struct RecordFields: Decodable, Equatable, Sendable {
        var kind: String?
        var msn: Int?
        /// Absent when no status was sent (a reset before the head).
        var status: Int?
        var ending: String
    }
}
