import Foundation
import Testing
import TestSupport

/// schemathesis (PyPI; `scripts/install-deps.sh test` installs it) against the live control API, with
/// and without a token: it generates requests from `GET /api/openapi.json` (valid and invalid ones,
/// and sequences that follow the document's links) and checks every answer — no 5xx, and no status,
/// content type, header or body that the document does not describe; with a token, that no route
/// works without it. `positive_data_acceptance` is left out: the document cannot say everything the
/// rule validator checks, so a schema-valid scenario may still be refused with its problems. The live
/// event stream never ends, so it is left to `EventStreamTests`.
@Suite(.serialized) struct OpenAPIConformanceTests {
    /// `st`, or `python3 -m schemathesis.cli` when pip put the package where PATH has no `st`.
    static let schemathesis: [String]? = {
        if let st = executable("st") ?? executable("schemathesis") { return [st] }
        guard let python = executable("python3") else { return nil }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: python)
        probe.arguments = ["-c", "import schemathesis.cli"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return nil }
        probe.waitUntilExit()
        return probe.terminationStatus == 0 ? [python, "-m", "schemathesis.cli"] : nil
    }()

    @Test(.enabled(if: schemathesis != nil), arguments: [nil, "conformance-token"])
    func schemathesisFindsNoServerErrorAndNoAnswerThatBreaksTheDocument(token: String?) async throws {
        try await ControlHarness.with(token: token) { harness in
            try await withTemporaryFolder("schemathesis") { folder in
                var arguments = [
                    "run", "http://127.0.0.1:\(harness.control.port)/api/openapi.json",
                    "--checks", "all", "--exclude-checks", "positive_data_acceptance",
                    "--exclude-path", "/api/events/stream",
                    "--max-examples", "20", "--seed", "1", "--workers", "1", "--request-timeout", "10",
                    "--generation-database", "none", "--no-color",
                ]
                if let token { arguments += ["--header", "Authorization: Bearer \(token)"] }
                let command = try #require(Self.schemathesis)
                let run = try BackgroundProcess(command[0], Array(command.dropFirst()) + arguments, directory: folder.path)
                let status = try await run.wait(seconds: 300)
                #expect(status == 0, "schemathesis found problems:\n\(run.stdout)\n\(run.stderr)")
                #expect(run.stdout.contains("passed"), "\(run.stdout)\n\(run.stderr)")
            }
        }
    }
}
