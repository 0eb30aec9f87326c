import Addressing
import Foundation

/// One line of `exchanges.jsonl`: a request and the response it got, as received (or the failure
/// it ended in). Field names are the JSON names; docs/bundles.md describes each.
public struct Exchange: Sendable, Codable, Equatable {
    /// Seconds from the bundle's `started` to when the request was sent.
    public var at: Double
    public var method: String
    /// The absolute URL asked for (after redaction, when the bundle is redacted).
    public var url: String
    /// The request's `Range` header, for byte-range requests.
    public var range: String?
    /// nil when no response head arrived (see `ending` and `error`).
    public var status: Int?
    /// Response headers in the order received.
    public var headers: [Header]
    /// The body as received; nil when there was none (or no response).
    public var body: BodyReference?
    public var ending: Ending
    /// What went wrong, in words, when `ending` is not `complete`.
    public var error: String?
    /// Seconds from the request being sent: connected, first response byte, last byte (or failure).
    public var timings: Timings
    /// The rule schema's resource kind (master, media, segment, init, key…), when known.
    public var kind: String?
    /// The proxy session the exchange belongs to (bundles recorded through the proxy).
    public var session: String?

    public struct Header: Sendable, Codable, Equatable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) { self.name = name; self.value = value }
    }

    /// A body stored once under `bodies/sha256/<sha256>`.
    public struct BodyReference: Sendable, Codable, Equatable, Hashable {
        public var sha256: String
        public var size: Int
        public init(sha256: String, size: Int) { self.sha256 = sha256; self.size = size }
    }

    public struct Timings: Sendable, Codable, Equatable {
        public var connect: Double?
        public var firstByte: Double?
        public var total: Double?
        public init(connect: Double? = nil, firstByte: Double? = nil, total: Double? = nil) {
            self.connect = connect; self.firstByte = firstByte; self.total = total
        }
    }

    public enum Ending: String, Sendable, Codable, Equatable, CaseIterable {
        /// The whole response arrived.
        case complete
        /// The body stopped short of its Content-Length (the connection closed early).
        case truncated
        /// The connection was reset.
        case reset
        /// No answer (or no end of the answer) within the time allowed.
        case timeout
        /// Any other failure (DNS, refused connection, TLS…); `error` says which.
        case failed
    }

    public init(
        at: Double, method: String = "GET", url: String, range: String? = nil, status: Int?, headers: [Header] = [],
        body: BodyReference? = nil, ending: Ending = .complete, error: String? = nil, timings: Timings = .init(),
        kind: String? = nil, session: String? = nil
    ) {
        self.at = at; self.method = method; self.url = url; self.range = range; self.status = status
        self.headers = headers; self.body = body; self.ending = ending; self.error = error; self.timings = timings
        self.kind = kind; self.session = session
    }

    /// The first header of that name (ASCII case-insensitive).
    /// A status of 400 or more, or a response that did not end complete (or never came).
    public var isFailure: Bool { (status ?? 0) >= 400 || ending != .complete || status == nil }

    /// A master or media playlist: by its recorded kind, else by its path and content type.
    public var isPlaylist: Bool {
        if let kind, let known = ResourceKind(rawValue: kind) { return known.isPlaylist }
        let path = UpstreamLocation(absolute: url)?.path ?? Substring(url)
        return ResourceGuess.byName(path: path, contentType: header("content-type")) == .playlist
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// When the response had fully arrived (or failed), in seconds from the bundle's start.
    public var receivedAt: Double { at + (timings.total ?? 0) }
}
