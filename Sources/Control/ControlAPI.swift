import Chaos
import Foundation
import HAR
import HTTPTypes
import Hummingbird
import JSON
import Logging
import NIOCore
import Proxy
import Records

/// The routes of the control API. JSON in and out; every failure is `{"error": "…", "problems": […]}`
/// with a fitting status (`APIError`). `OpenAPIDocument` describes each route; tests hold the routes
/// registered here and the document's to each other, and run schemathesis against the live server.
struct ControlAPI: Sendable {
    let proxy: ProxyControl
    let configuration: ControlConfiguration
    let metrics: ControlMetrics
    let streams: EventStreams
    let logger: Logger

    /// Records one events page returns at most (`limit`).
    static let maxPageSize = 10_000
    static let defaultPageSize = 1_000

    func register(on router: Router<BasicRequestContext>) {
        router.add(middleware: ErrorMiddleware(logger: logger))
        if let token = configuration.token { router.add(middleware: BearerAuthMiddleware(token: token)) }

        Dashboard.register(on: router)
        router.get("/healthz") { _, _ in health() }
        router.get("/metrics") { _, _ in prometheus() }
        router.get("/api/openapi.json") { _, _ in openAPI() }
        router.get("/api/presets") { _, _ in presets() }
        router.get("/api/sessions") { _, _ in sessions() }
        router.post("/api/sessions") { request, _ in try await createSession(request) }
        router.get("/api/sessions/{id}") { _, context in try session(context) }
        router.delete("/api/sessions/{id}") { _, context in try deleteSession(context) }
        router.put("/api/sessions/{id}/rules") { request, context in try await putSessionRules(request, context) }
        router.delete("/api/sessions/{id}/rules") { _, context in try deleteSessionRules(context) }
        router.get("/api/sessions/{id}/events") { request, context in try events(request, context) }
        router.get("/api/sessions/{id}/har") { _, context in try har(context) }
        router.get("/api/sessions/{id}/report") { _, context in try report(context) }
        router.get("/api/sessions/{id}/player") { _, context in try player(context) }
        router.get("/api/sessions/{id}/cmcd") { _, context in try cmcd(context) }
        router.get("/api/sessions/{id}/recording") { _, context in try recording(context) }
        router.put("/api/sessions/{id}/recording") { request, context in try await startRecording(request, context) }
        router.delete("/api/sessions/{id}/recording") { _, context in try stopRecording(context) }
        router.get("/api/recordings") { _, _ in recordings() }
        router.get("/api/rules") { _, _ in rules() }
        router.put("/api/rules") { request, _ in try await putRules(request) }
        router.delete("/api/rules") { _, _ in deleteRules() }
        router.get("/api/events/stream") { request, _ in try eventStream(request) }
        router.get("/api/devices") { _, _ in devices() }
        router.put("/api/devices/{address}") { request, context in try await nameDevice(request, context) }
        router.delete("/api/devices/{address}") { _, context in try unnameDevice(context) }
        router.get("/api/setup") { _, _ in setup() }
        registerLinkRoutes(on: router)
    }

    // MARK: - Service

    func health() -> Response {
        JSONOutput.response(Health(status: "ok", proxyPort: proxy.port, sessions: proxy.sessionCount))
    }

    func prometheus() -> Response {
        var buffer = ByteBuffer()
        buffer.writeBytes(metrics.scrape())
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: buffer))
    }

    func openAPI() -> Response {
        JSONOutput.response(bytes: Data(OpenAPIDocument.text(
            version: configuration.version, bearerToken: configuration.token != nil, presets: proxy.presetNames).utf8))
    }

    // MARK: - Presets and sessions

    func presets() -> Response {
        let list = proxy.presetNames.compactMap(proxy.preset(named:)).map {
            PresetJSON(name: $0.name, description: $0.description, reference: $0.reference, rules: $0.rules.count)
        }
        return JSONOutput.response(PresetList(presets: list))
    }

    func sessions() -> Response {
        JSONOutput.response(SessionList(sessions: proxy.sessions().map(sessionJSON)))
    }

    func createSession(_ request: Request) async throws -> Response {
        let body = try await readJSON(request)
        guard case .object(let members) = body else {
            throw APIError.badRequest(
                #"the body must be a JSON object such as {"id": "tv1", "scenario": "status-503", "stripCMCD": true}"#,
                problems: [.init(file: "request", path: "$", message: "expected an object, got \(body.typeName)")])
        }
        try Self.checkKeys(members, allowed: ["id", "scenario", "stripCMCD"])
        guard let idValue = body.member("id") else {
            throw APIError.badRequest(
                #"the session needs an "id" (1 to 64 letters, digits, '.', '_' or '-')"#,
                problems: [.init(file: "request", path: "$.id", message: "missing")])
        }
        guard case .string(let id) = idValue else {
            throw APIError.badRequest(
                #""id" must be a string"#,
                problems: [.init(file: "request", path: "$.id", message: "expected a string, got \(idValue.typeName)")])
        }
        guard ProxyControl.isValidSessionID(id) else { throw APIError.invalidSessionID(id) }
        var scenario: Scenario?
        if let value = body.member("scenario") {
            scenario = try ScenarioInput.scenario(value, presets: proxy, path: "$.scenario")
        }
        let stripCMCD = try Self.stripCMCD(body.member("stripCMCD"))
        let existed = proxy.session(id) != nil
        var session = proxy.openSession(id, scenario: scenario)
        if let stripCMCD { session = proxy.setStripCMCD(stripCMCD, session: id) ?? session }
        var response = JSONOutput.response(sessionJSON(session), status: existed ? .ok : .created)
        response.headers[.location] = "/api/sessions/\(id)"
        return response
    }

    func session(_ context: BasicRequestContext) throws -> Response {
        let id = try sessionID(context)
        guard let session = proxy.session(id) else { throw APIError.noSession(id) }
        return JSONOutput.response(sessionJSON(session))
    }

    func deleteSession(_ context: BasicRequestContext) throws -> Response {
        let id = try sessionID(context)
        let recorded = (try? proxy.stopRecording(session: id)) != nil
        guard proxy.removeSession(id) || recorded else { throw APIError.noSession(id) }
        return Response(status: .noContent)
    }

    // MARK: - Rules

    func putSessionRules(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try sessionID(context)
        guard proxy.session(id) != nil else { throw APIError.noSession(id) }
        let scenario = try ScenarioInput.rulesBody(try await readJSON(request), presets: proxy)
        guard let session = proxy.setScenario(scenario, session: id) else {
            throw APIError.noSession(id)
        }
        return JSONOutput.response(sessionJSON(session))
    }

    func deleteSessionRules(_ context: BasicRequestContext) throws -> Response {
        let id = try sessionID(context)
        guard let session = proxy.setScenario(nil, session: id) else {
            throw APIError.noSession(id)
        }
        return JSONOutput.response(sessionJSON(session))
    }

    func rules() -> Response {
        JSONOutput.response(rulesJSON())
    }

    func putRules(_ request: Request) async throws -> Response {
        let scenario = try ScenarioInput.rulesBody(try await readJSON(request), presets: proxy)
        proxy.setScenarioForEverySession(scenario)
        return JSONOutput.response(rulesJSON())
    }

    func deleteRules() -> Response {
        proxy.setScenarioForEverySession(nil)
        return JSONOutput.response(rulesJSON())
    }

    private func rulesJSON() -> RulesJSON {
        RulesJSON(scenario: proxy.scenarioForEverySession?.name, ruleFiles: proxy.ruleFileScenarioNames)
    }

    // MARK: - Records

    func events(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        let id = try recordedSessionID(context)
        let query = request.uri.queryParameters
        let since = try Self.cursor(query["since"].map(String.init), name: "since") ?? 0
        let limit = try Self.limit(query["limit"].map(String.init))
        let page = proxy.records(session: id, since: since, limit: limit)
        return JSONOutput.response(EventsPage(session: id, records: page, cursor: page.map(\.id).max() ?? since))
    }

    func har(_ context: BasicRequestContext) throws -> Response {
        let id = try recordedSessionID(context)
        let baseURL = "http://\(configuration.deviceHosts.first ?? "localhost"):\(proxy.port)"
        let data = HARDocument.data(
            records: proxy.records(session: id), baseURL: baseURL, creatorVersion: configuration.version,
            prettyPrinted: false)
        var buffer = ByteBuffer()
        buffer.writeBytes(data)
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/json", .cacheControl: "no-store",
                .contentDisposition: "attachment; filename=\"hlschaos-\(id).har\"",
            ],
            body: .init(byteBuffer: buffer))
    }

    func report(_ context: BasicRequestContext) throws -> Response {
        let id = try recordedSessionID(context)
        return JSONOutput.response(ReportAnswer(proxy.report(session: id)))
    }

    func eventStream(_ request: Request) throws -> Response {
        let query = request.uri.queryParameters
        let session = query["session"].map(String.init)
        if let session, !ProxyControl.isValidSessionID(session) { throw APIError.invalidSessionID(session) }
        let lastEventID = try Self.cursor(request.headers[HTTPField.Name("Last-Event-ID")!], name: "Last-Event-ID")
        let since = try Self.cursor(query["since"].map(String.init), name: "since")
        guard !streams.isFull else {
            throw APIError(
                .serviceUnavailable, "\(streams.limit) live event streams are open; close one or poll /api/sessions/{id}/events",
                headers: [.retryAfter: "5"])
        }
        let responder = EventStreamResponder(proxy: proxy, streams: streams, heartbeat: configuration.heartbeatInterval)
        return responder.response(session: session, after: lastEventID ?? since)
    }

    // MARK: - Input

    /// The session id of the path, checked.
    func sessionID(_ context: BasicRequestContext) throws(APIError) -> String {
        let id = context.parameters.get("id") ?? ""
        guard ProxyControl.isValidSessionID(id) else { throw APIError.invalidSessionID(id) }
        return id
    }

    /// The session id of the path, for a session that is live or still has records.
    func recordedSessionID(_ context: BasicRequestContext) throws(APIError) -> String {
        let id = try sessionID(context)
        guard proxy.isKnown(session: id) else {
            throw APIError.noSession(id)
        }
        return id
    }

    /// A record id: a non-negative integer.
    static func cursor(_ text: String?, name: String) throws(APIError) -> UInt64? {
        guard let text else { return nil }
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = UInt64(text) else {
            throw APIError.badRequest(
                "\(name) must be a record id: a non-negative integer, got \"\(text)\"",
                problems: [.init(file: "request", path: name, message: "expected a non-negative integer")])
        }
        return value
    }

    static func limit(_ text: String?) throws(APIError) -> Int {
        guard let text else { return defaultPageSize }
        guard text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int(text), (1...maxPageSize).contains(value) else {
            throw APIError.badRequest(
                "limit must be an integer from 1 to \(maxPageSize), got \"\(text)\"",
                problems: [.init(file: "request", path: "limit", message: "expected an integer from 1 to \(maxPageSize)")])
        }
        return value
    }

    /// The body as JSON: `application/json` (or `…+json`; no Content-Type is taken as JSON), at most
    /// `maxBodyBytes`, UTF-8, well-formed.
    func readJSON(_ request: Request) async throws -> JSONValue {
        if let type = request.headers[.contentType] {
            let media = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            guard media == "application/json" || (media.hasPrefix("application/") && media.hasSuffix("+json")) else {
                throw APIError(.unsupportedMediaType, "send the body as JSON with Content-Type: application/json (got \"\(type)\")")
            }
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: configuration.maxBodyBytes)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, "the body is larger than \(configuration.maxBodyBytes) bytes")
        }
        let bytes = Array(buffer.readableBytesView)
        guard !bytes.isEmpty else {
            throw APIError.badRequest("the request needs a JSON body", problems: [.init(file: "request", path: "$", message: "empty body")])
        }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw APIError.badRequest(
                "the body is not valid JSON: it is not UTF-8 text", problems: [.init(file: "request", path: "$", message: "not UTF-8")])
        }
        do {
            return try JSONValue.parse(bytes)
        } catch {
            throw APIError.badRequest("the body is not valid JSON: \(error)", problems: [.init(file: "request", path: "$", message: error.description)])
        }
    }

    /// Unknown and repeated keys of a request object are a 400 naming each.
    static func checkKeys(_ members: [JSONMember], allowed: [String]) throws(APIError) {
        var seen = Set<String>()
        var problems: [APIError.Problem] = []
        for member in members {
            let path = JSONPath.child("$", member.key)
            if !seen.insert(member.key).inserted {
                problems.append(.init(file: "request", path: path, message: "duplicate key \"\(member.key)\""))
            } else if !allowed.contains(member.key) {
                let hint = ValueSyntax.suggestion(for: member.key, in: allowed).map { " (did you mean \"\($0)\"?)" }
                    ?? " (expected one of \(allowed.joined(separator: ", ")))"
                problems.append(.init(file: "request", path: path, message: "unknown key \"\(member.key)\"\(hint)"))
            }
        }
        guard problems.isEmpty else {
            throw APIError.badRequest(problems.map(\.message).joined(separator: "; "), problems: problems)
        }
    }

    // MARK: - Output

    func sessionJSON(_ summary: ProxyControl.SessionSummary) -> SessionJSON {
        SessionJSON(
            id: summary.id, startedAt: summary.startedAt, requests: summary.requestCount, scenario: summary.scenario,
            urls: deviceURLs(summary.id), stripCMCD: summary.stripCMCD ?? proxy.stripCMCDByDefault)
    }

    /// Where a device plays the session: `http://<host>:<proxy port>/s/<id>/` for every device host,
    /// then `https://<host>:<HTTPS port>/s/<id>/` for each when the proxy has an HTTPS listener.
    func deviceURLs(_ id: String) -> [String] {
        let path = "\(ProxyControl.sessionPath(id))/"
        let http = configuration.deviceHosts.map { "http://\($0):\(proxy.port)\(path)" }
        guard let httpsPort = proxy.httpsPort else { return http }
        return http + configuration.deviceHosts.map { "https://\($0):\(httpsPort)\(path)" }
    }
}

// MARK: - JSON shapes (OpenAPIDocument describes them)

struct Health: Encodable {
    var status: String
    var proxyPort: Int
    var sessions: Int
}

struct PresetJSON: Encodable {
    var name: String
    var description: String?
    var reference: String?
    var rules: Int

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(description, forKey: .description)
        try container.encode(reference, forKey: .reference)
        try container.encode(rules, forKey: .rules)
    }
    enum CodingKeys: String, CodingKey { case name, description, reference, rules }
}

struct PresetList: Encodable {
    var presets: [PresetJSON]
}

struct SessionJSON: Encodable {
    var id: String
    var startedAt: Date
    var requests: Int
    /// The scenario set through the API (null: none).
    var scenario: String?
    var urls: [String]
    /// Whether the session's requests lose their CMCD before the upstream fetch.
    var stripCMCD: Bool

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encode(requests, forKey: .requests)
        try container.encode(scenario, forKey: .scenario)
        try container.encode(urls, forKey: .urls)
        try container.encode(stripCMCD, forKey: .stripCMCD)
    }
    enum CodingKeys: String, CodingKey { case id, startedAt, requests, scenario, urls, stripCMCD }
}

struct SessionList: Encodable {
    var sessions: [SessionJSON]
}

struct RulesJSON: Encodable {
    /// The scenario the API applies to every session (null: none).
    var scenario: String?
    /// The scenarios of the rule files (`--rules`), which apply to every session before it.
    var ruleFiles: [String]

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scenario, forKey: .scenario)
        try container.encode(ruleFiles, forKey: .ruleFiles)
    }
    enum CodingKeys: String, CodingKey { case scenario, ruleFiles }
}

struct EventsPage: Encodable {
    var session: String
    var records: [RequestRecord]
    /// Pass as `since` to get the records after these.
    var cursor: UInt64
}
