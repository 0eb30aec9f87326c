import BundleFormat
import Foundation
import Records

/// A HAR (HTTP Archive 1.2) as `hlschaos import-har` reads it: what Chrome DevTools (and
/// chromedriver-built HARs), Safari's Web Inspector, Charles and hlschaos's own export write, with
/// their differences smoothed out — missing optional fields are nil, the spec's `-1` ("unknown") is
/// nil, base64 bodies are decoded, each tool's way of saying a request failed is kept as `error`.
public struct HARLog: Sendable {
    /// `log.creator.name` ("WebKit Web Inspector", "Charles Proxy", "hlschaos", "WebInspector" for
    /// Chrome DevTools).
    public var creator: String?
    public var creatorVersion: String?
    /// `log.browser.name` and version, when given.
    public var browser: String?
    public var entries: [HAREntry]

    public init(creator: String? = nil, creatorVersion: String? = nil, browser: String? = nil, entries: [HAREntry]) {
        self.creator = creator; self.creatorVersion = creatorVersion; self.browser = browser; self.entries = entries
    }

    /// Written by hlschaos's own export (`_resource`, `_fault`, `blocked` = the rule's delay).
    public var isHLSChaos: Bool { creator == "hlschaos" }

    /// "Chrome DevTools", "Safari Web Inspector 19618.1.15", "hlschaos dev"… for messages.
    public var creatorText: String {
        guard let creator, !creator.isEmpty else { return "unknown tool" }
        let name = creator == "WebInspector" ? "Chrome DevTools" : creator == "WebKit Web Inspector" ? "Safari Web Inspector" : creator
        guard let creatorVersion, !creatorVersion.isEmpty else { return name }
        return "\(name) \(creatorVersion)"
    }
}

/// One `log.entries[i]`.
public struct HAREntry: Sendable {
    /// The position in `log.entries` (for messages: `log.entries[12]`).
    public var index: Int
    /// `startedDateTime`; nil when the tool wrote none (Safari writes "" for requests it has no date for).
    public var started: Date?
    /// `time` in seconds; nil when unknown.
    public var time: Double?
    public var method: String
    public var url: String
    public var requestHeaders: [Exchange.Header]
    /// 0 when no response head arrived (the browsers' way of writing a failed request).
    public var status: Int
    public var responseHeaders: [Exchange.Header]
    /// `content.size` (decoded body bytes), nil when unknown.
    public var contentSize: Int?
    public var mimeType: String?
    /// The body the HAR carries (`content.text`, base64-decoded when `content.encoding` says so);
    /// nil when it was not saved.
    public var body: [UInt8]?
    /// Why `content.text` could not be used, when it was there but unreadable.
    public var bodyProblem: String?
    /// `response.bodySize` (bytes received on the wire), nil when unknown.
    public var bodySize: Int?
    /// Chrome's and Safari's `_transferSize` (headers and body on the wire).
    public var transferSize: Int?
    /// What went wrong, in the tool's words: `_error` (Chrome, Safari, hlschaos), a Charles status
    /// other than COMPLETE with its comment.
    public var error: String?
    public var timings: Timings
    /// Answered from the browser's cache (Chrome `_fromCache`, Safari `_fetchType`): never reached
    /// the server.
    public var fromCache: Bool
    /// hlschaos's `_resource`, when the export wrote one with a kind.
    public var resource: ResourceHint?
    /// hlschaos's `_ending` (complete, truncated, reset, clientAbort, hang, closed).
    public var ending: String?
    /// hlschaos's `_fault.actions`: what the proxy did, as its records say (an export older than
    /// typed actions gives their words, as actions of kind `unknown`).
    public var faultActions: [RequestRecord.Action]

    /// The HAR's phases in seconds; nil where it says -1 or nothing.
    public struct Timings: Sendable, Equatable {
        public var blocked: Double?
        public var dns: Double?
        public var connect: Double?
        public var ssl: Double?
        public var send: Double?
        public var wait: Double?
        public var receive: Double?
        public init(blocked: Double? = nil, dns: Double? = nil, connect: Double? = nil, ssl: Double? = nil,
                    send: Double? = nil, wait: Double? = nil, receive: Double? = nil) {
            self.blocked = blocked; self.dns = dns; self.connect = connect; self.ssl = ssl
            self.send = send; self.wait = wait; self.receive = receive
        }

        /// From the request being started to its first response byte: blocked + dns + connect +
        /// send + wait (ssl is part of connect in HAR); nil when no phase is known.
        public var firstByte: Double? {
            let phases = [blocked, dns, connect, send, wait].compactMap { $0 }
            return phases.isEmpty ? nil : phases.reduce(0, +)
        }
    }

    /// hlschaos's `_resource`: what the proxy classified the request as.
    public struct ResourceHint: Sendable, Equatable {
        public var kind: String
        public var variant: Int?
        public var rendition: Int?
        public var msn: Int?
        public var part: Int?
        public var copy: String?
        public init(kind: String, variant: Int? = nil, rendition: Int? = nil, msn: Int? = nil, part: Int? = nil, copy: String? = nil) {
            self.kind = kind; self.variant = variant; self.rendition = rendition; self.msn = msn; self.part = part; self.copy = copy
        }
    }

    public init(
        index: Int, started: Date?, time: Double? = nil, method: String = "GET", url: String,
        requestHeaders: [Exchange.Header] = [], status: Int, responseHeaders: [Exchange.Header] = [],
        contentSize: Int? = nil, mimeType: String? = nil, body: [UInt8]? = nil, bodyProblem: String? = nil,
        bodySize: Int? = nil, transferSize: Int? = nil, error: String? = nil, timings: Timings = .init(),
        fromCache: Bool = false, resource: ResourceHint? = nil, ending: String? = nil, faultActions: [RequestRecord.Action] = []
    ) {
        self.index = index; self.started = started; self.time = time; self.method = method; self.url = url
        self.requestHeaders = requestHeaders; self.status = status; self.responseHeaders = responseHeaders
        self.contentSize = contentSize; self.mimeType = mimeType; self.body = body; self.bodyProblem = bodyProblem
        self.bodySize = bodySize; self.transferSize = transferSize; self.error = error; self.timings = timings
        self.fromCache = fromCache; self.resource = resource; self.ending = ending; self.faultActions = faultActions
    }

    /// `log.entries[12]`
    public var path: String { "log.entries[\(index)]" }

    public func requestHeader(_ name: String) -> String? {
        requestHeaders.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public func responseHeader(_ name: String) -> String? {
        responseHeaders.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Body bytes that reached the client: `bodySize` when known, else `content.size`, else the
    /// saved body's length.
    public var receivedBytes: Int? { bodySize ?? contentSize ?? body?.count }

    /// The response's `Content-Length`, when it has one.
    public var contentLength: Int? { responseHeader("content-length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }
}

/// Why a HAR could not be imported: the file, the JSON path inside it (`log.entries[12].response.status`)
/// and what is wrong. Every reader path ends in one of these, never a crash.
public struct HARImportError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    public var file: String
    /// nil for problems with the file as a whole (unreadable, not JSON).
    public var path: String?
    public var problem: String

    public init(file: String, path: String? = nil, _ problem: String) {
        self.file = file; self.path = path; self.problem = problem
    }

    public var description: String { path.map { "\(file): \($0): \(problem)" } ?? "\(file): \(problem)" }
    public var errorDescription: String? { description }
}
