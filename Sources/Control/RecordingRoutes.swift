import Foundation
import Hummingbird
import JSON
import Proxy
import BundleFormat

/// Recording a session through the control API: `PUT /api/sessions/{id}/recording` starts a bundle
/// in the configured recordings directory, `DELETE` stops it and returns its totals, `GET` says
/// what is being recorded. The body names a file inside the directory, never a path. The session
/// must exist (`POST /api/sessions` creates it before its device connects); deleting the session
/// stops its recording.
extension ControlAPI {
    struct RecordingJSON: Encodable {
        /// False when `GET` asks about a session that is not being recorded (then only `session` is set).
        var active: Bool
        var session: String?
        var path: String?
        var started: Date?
        var redacted: Bool?
        var maxBytes: Int?
        /// Set once the recording has stopped.
        var ended: Date?
        var exchanges: Int?
        var bodies: Int?
        var bodyBytes: Int?
        var stopReason: String?

        init(inactive session: String) {
            active = false
            self.session = session
        }

        init(_ status: ProxyRecorder.Status, manifest: BundleManifest? = nil) {
            active = manifest == nil
            session = status.session; path = status.path; started = status.started; redacted = status.redacted
            maxBytes = status.maxBytes
            ended = manifest?.ended; exchanges = manifest?.exchangeCount; bodies = manifest?.bodyCount
            bodyBytes = manifest?.bodyBytes; stopReason = manifest?.stopReason
        }
    }

    struct RecordingList: Encodable { var recordings: [RecordingJSON] }

    func recordings() -> Response {
        JSONOutput.response(RecordingList(recordings: proxy.recordings.map { RecordingJSON($0) }))
    }

    func recording(_ context: BasicRequestContext) throws -> Response {
        let id = try sessionID(context)
        let status = proxy.recordingStatus(session: id)
        guard status != nil || proxy.session(id) != nil else { throw APIError.noSession(id) }
        return JSONOutput.response(status.map { RecordingJSON($0) } ?? RecordingJSON(inactive: id))
    }

    func startRecording(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try sessionID(context)
        guard proxy.session(id) != nil else { throw APIError.noSession(id) }
        let settings = try await recordingSettings(request, session: id)
        let directory = proxy.recordingDefaults.directory
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw APIError(.internalServerError, "the recordings directory \(directory) cannot be created: \(error.localizedDescription) (config \"recordings\")")
        }
        let path = URL(fileURLWithPath: directory).appendingPathComponent(settings.name).standardizedFileURL.path
        do {
            let status = try proxy.startRecording(session: id, path: path, redact: settings.redact, maxBytes: settings.maxBytes)
            var response = JSONOutput.response(RecordingJSON(status), status: .created)
            response.headers[.location] = "/api/sessions/\(id)/recording"
            return response
        } catch {
            // The recorder refuses a session recorded already, and a bundle name that is taken.
            let busy = proxy.recordingStatus(session: id) != nil
            let exists = FileManager.default.fileExists(atPath: path) || FileManager.default.fileExists(atPath: path + ".partial")
            let message = busy ? "session \"\(id)\" is being recorded already: DELETE /api/sessions/\(id)/recording first" : error.description
            throw APIError(busy || exists ? .conflict : .internalServerError, message)
        }
    }

    func stopRecording(_ context: BasicRequestContext) throws -> Response {
        let id = try sessionID(context)
        guard let status = proxy.recordingStatus(session: id) else {
            guard proxy.session(id) != nil else { throw APIError.noSession(id) }
            return JSONOutput.response(RecordingJSON(inactive: id))
        }
        do {
            guard let manifest = try proxy.stopRecording(session: id) else { return JSONOutput.response(RecordingJSON(inactive: id)) }
            return JSONOutput.response(RecordingJSON(status, manifest: manifest))
        } catch {
            throw APIError(.internalServerError, "the recording did not finish cleanly: \(error)")
        }
    }

    private struct RecordingSettings {
        var name: String
        var redact: Bool
        var maxBytes: Int?
    }

    /// The optional body `{"name": "tv1.tar", "redact": true, "maxBytes": 1073741824}`; no body
    /// (or `{}`) takes the defaults: a directory named after the session and the time, and the
    /// configuration's `recordRedact` and `recordMaxBytes`.
    private func recordingSettings(_ request: Request, session: String) async throws -> RecordingSettings {
        let stamp = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false).dateSeparator(.omitted).timeSeparator(.omitted))
        var settings = RecordingSettings(
            name: "\(session)-\(stamp.replacingOccurrences(of: "T", with: "-"))",
            redact: proxy.recordingDefaults.redact, maxBytes: proxy.recordingDefaults.maxBytes)
        let hasBody = request.headers[.contentLength].map { $0 != "0" } ?? (request.headers[.transferEncoding] != nil)
        guard hasBody else { return settings }
        let body = try await readJSON(request)
        guard case .object(let members) = body else {
            throw APIError.badRequest(
                #"the body must be a JSON object such as {"name": "tv1.tar", "redact": true}, or empty"#,
                problems: [.init(file: "request", path: "$", message: "expected an object, got \(body.typeName)")])
        }
        try Self.checkKeys(members, allowed: ["name", "redact", "maxBytes"])
        if let value = body.member("name") {
            guard case .string(let name) = value, Self.isValidRecordingName(name) else {
                throw APIError.badRequest(
                    #""name" must be a file name: 1 to 128 letters, digits, '.', '_' or '-', not starting with '.' (end it with .tar for one file)"#,
                    problems: [.init(file: "request", path: "$.name", message: "expected a file name such as tv1.tar")])
            }
            settings.name = name
        }
        if let value = body.member("redact") {
            guard case .bool(let redact) = value else {
                throw APIError.badRequest(#""redact" must be true or false"#, problems: [.init(file: "request", path: "$.redact", message: "expected a boolean, got \(value.typeName)")])
            }
            settings.redact = redact
        }
        if let value = body.member("maxBytes") {
            if value == .null {
                settings.maxBytes = nil
            } else {
                guard case .number(_, let text) = value, let bytes = Int(text), bytes >= 1_048_576 else {
                    throw APIError.badRequest(
                        #""maxBytes" must be a whole number of bytes, at least 1048576 (1 MB), or null for no cap"#,
                        problems: [.init(file: "request", path: "$.maxBytes", message: "expected an integer ≥ 1048576, got \(value.serialized())")])
                }
                settings.maxBytes = bytes
            }
        }
        return settings
    }

    static func isValidRecordingName(_ name: String) -> Bool {
        (1...128).contains(name.utf8.count) && !name.hasPrefix(".")
            && name.utf8.allSatisfy { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }
}
