import Chaos
import Foundation
import Records
import Hummingbird

/// An answer other than success: `{"error": "…", "problems": […]}` with a 4xx (or 5xx) status.
/// `problems` lists what is wrong with the request, one entry per place: for a scenario, exactly the
/// problems `hlschaos validate` prints for the same text (`file`, JSON `path`, `message`).
struct APIError: Error, HTTPResponseError, Sendable {
    var status: HTTPResponse.Status
    var message: String
    var problems: [Problem] = []
    var headers: HTTPFields = [:]

    struct Problem: Codable, Sendable, Equatable {
        var file: String
        var path: String
        var message: String

        init(file: String, path: String, message: String) {
            self.file = file
            self.path = path
            self.message = message
        }

        init(_ problem: RuleProblem) {
            self.init(file: problem.file, path: problem.path, message: problem.message)
        }
    }

    init(_ status: HTTPResponse.Status, _ message: String, problems: [Problem] = [], headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.problems = problems
        self.headers = headers
    }

    private struct Body: Encodable {
        var error: String
        var problems: [Problem]
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        response()
    }

    func response() -> Response {
        var response = JSONOutput.response(Body(error: message, problems: problems), status: status)
        for field in headers { response.headers.append(field) }
        return response
    }

    // MARK: - The usual ones

    static func badRequest(_ message: String, problems: [Problem] = []) -> APIError {
        APIError(.badRequest, message, problems: problems)
    }

    static func noSession(_ id: String) -> APIError {
        APIError(.notFound, "no session \"\(id)\": create it with POST /api/sessions, or let a device request /s/\(id)/…")
    }

    static func invalidSessionID(_ id: String) -> APIError {
        APIError(
            .badRequest,
            "\"\(id)\" is not a session id: use 1 to 64 letters, digits, '.', '_' or '-'",
            problems: [Problem(file: "request", path: "id", message: "1 to 64 letters, digits, '.', '_' or '-'")])
    }

    static func invalidScenario(_ error: RuleFileError) -> APIError {
        let count = error.problems.count
        return APIError(
            .badRequest, "the scenario is not valid: \(count) problem\(count == 1 ? "" : "s") (the same as hlschaos validate reports)",
            problems: error.problems.map(Problem.init))
    }
}

/// JSON as the control API writes it: keys sorted, `/` unescaped, instants as `RecordTime` writes them
/// (ISO 8601, UTC, milliseconds) like the JSON Lines events file.
enum JSONOutput {
    static func encoder(pretty: Bool = false) -> JSONEncoder { RecordTime.jsonEncoder(pretty: pretty) }

    static func data(_ value: some Encodable) -> Data {
        // Every value the API encodes is plain data (strings, numbers, finite doubles): encoding cannot fail.
        (try? encoder().encode(value)) ?? Data(#"{"error":"the answer could not be encoded","problems":[]}"#.utf8)
    }

    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok, contentType: String = "application/json") -> Response {
        response(bytes: data(value), status: status, contentType: contentType)
    }

    static func response(bytes: Data, status: HTTPResponse.Status = .ok, contentType: String = "application/json") -> Response {
        var buffer = ByteBuffer()
        buffer.writeBytes(bytes)
        buffer.writeString("\n")
        return Response(status: status, headers: [.contentType: contentType, .cacheControl: "no-store"], body: .init(byteBuffer: buffer))
    }
}
