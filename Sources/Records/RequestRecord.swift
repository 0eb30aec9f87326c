import Addressing
import Foundation

/// What happened to one client request, from its arrival to the last byte sent (or the moment the
/// connection ended). The data plane fills one in as the request goes and emits it once, when the
/// response ends; events, HAR, the reaction report, verdicts and recordings all read these.
///
/// Field names are the JSON names (JSON Lines, the control API, the HAR's extensions).
public struct RequestRecord: Sendable, Codable, Equatable {
    /// Increasing across the process: a cursor for "records since".
    public var id: UInt64
    /// When the request head arrived.
    public var time: Date
    public var session: String
    /// The client's address and port ("192.168.1.20:51234").
    public var client: String
    public var method: String
    /// The protocol the client used: "HTTP/1.1", "HTTP/2" (absent in records of older versions: HTTP/1.1).
    public var httpVersion: String?
    /// The request target as received ("/s/tv1/~seg.v2.n42/https/cdn/…").
    public var path: String
    /// What the request fetched (its JSON is the rule schema's name: master, media, segment, part,
    /// init, key, sessionData, steering); nil when the request was refused before it was classified.
    public var kind: ResourceKind?
    public var variant: Int?
    public var rendition: Int?
    /// The I-frame playlist's index in the master (`EXT-X-I-FRAME-STREAM-INF`), for its requests.
    public var iFrameVariant: Int?
    /// "backup" for the redundant copy the `backupVariants` fault adds; nil for the primary.
    public var copy: String?
    public var msn: Int?
    public var part: Int?
    /// The content-steering pathway (`PATHWAY-ID`) of the variant or rendition the resource belongs to.
    public var pathway: String?
    public var upstream: Upstream?
    /// Every rule that matched, in file order ("scenario/rule-id").
    public var matchedRules: [String]
    /// The rule that decided each part of the response.
    public var decidingRules: DecidingRules
    /// What was done, each with the rule that decided it: the delay first, then the response's
    /// action, then the content changes in file order.
    public var actions: [Action]
    /// The status actually sent (nil: none was, e.g. a hang or a reset before headers).
    public var status: Int?
    /// Body bytes actually handed to the client's socket.
    public var bytesSent: Int
    public var ending: Ending
    /// Seconds from the request's arrival to its end.
    public var duration: Double
    /// A few headers worth keeping (content-type, content-length, range, user-agent…).
    public var requestHeaders: [Header]
    public var responseHeaders: [Header]
    /// What the session's link did to the response (absent when the session had no link).
    public var link: LinkTimes?

    /// Seconds the session's link held a response back.
    public struct LinkTimes: Sendable, Codable, Equatable {
        /// Latency before the head: the link's base and jitter, a new connection's round trip, and
        /// the time the link was down when the response was ready.
        public var latency: Double
        /// Time with body bytes waiting while the link was up but its capacity was used (by this
        /// response's share or by the others').
        public var waited: Double
        /// Time with body bytes waiting while the link was down (a bad state or an outage).
        public var stalled: Double

        public init(latency: Double, waited: Double, stalled: Double) {
            self.latency = latency; self.waited = waited; self.stalled = stalled
        }
    }
    /// The CMCD the request carried (query argument and `CMCD-*` headers), nil when none.
    public var cmcd: CMCD?

    public struct Upstream: Sendable, Codable, Equatable {
        public var url: String
        /// nil when the fetch failed before a response head (see `error`).
        public var status: Int?
        /// libcurl's timings in seconds from the start of the transfer.
        public var connect: Double?
        public var firstByte: Double?
        public var total: Double?
        public var error: String?

        public init(url: String, status: Int? = nil, connect: Double? = nil, firstByte: Double? = nil, total: Double? = nil, error: String? = nil) {
            self.url = url; self.status = status; self.connect = connect; self.firstByte = firstByte; self.total = total; self.error = error
        }
    }

    public struct DecidingRules: Sendable, Codable, Equatable {
        public var response: String?
        public var delay: String?
        public var content: [String]

        public init(response: String? = nil, delay: String? = nil, content: [String] = []) {
            self.response = response; self.delay = delay; self.content = content
        }
    }

    /// A request's CMCD, compact: the keys as one dictionary and what was wrong with them.
    public struct CMCD: Sendable, Codable, Equatable {
        /// Every key read, as one CMCD dictionary in key order (`bl=(2000),br=(3000;v),su`): what
        /// `CMCDData.parse(compact:)` reads back.
        public var text: String
        /// Where the request carried it: `query`, `CMCD-Object`, `CMCD-Request`, `CMCD-Session`, `CMCD-Status`.
        public var carriages: [String]
        /// What was malformed or out of range, in words (absent when nothing was).
        public var findings: [String]?

        public init(text: String, carriages: [String], findings: [String]? = nil) {
            self.text = text; self.carriages = carriages; self.findings = findings
        }
    }

    public struct Header: Sendable, Codable, Equatable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) { self.name = name; self.value = value }
    }

    public enum Ending: String, Sendable, Codable, Equatable, CaseIterable {
        /// The whole response was sent.
        case complete
        /// Cut short on purpose with a FIN (`truncate`) or by a closed connection after headers.
        case truncated
        /// Ended with a TCP RST (`reset`).
        case reset
        /// The client went away before the response ended.
        case clientAbort
        /// A `hang` fault: no answer, until the client gave up or the hang's time ran out.
        case hang
        /// Closed by the proxy without a response (shutdown, a broken upstream body, a limit).
        case closed
    }

    /// Inlinable: the data plane makes one for every request, and built across the module
    /// boundary the record was assembled, then copied into place.
    @inlinable
    public init(
        id: UInt64, time: Date, session: String, client: String, method: String, path: String,
        kind: ResourceKind? = nil, variant: Int? = nil, rendition: Int? = nil, iFrameVariant: Int? = nil, copy: String? = nil, msn: Int? = nil,
        part: Int? = nil, pathway: String? = nil, upstream: Upstream? = nil, matchedRules: [String] = [], decidingRules: DecidingRules = .init(),
        actions: [Action] = [], status: Int? = nil, bytesSent: Int = 0, ending: Ending = .complete, duration: Double = 0,
        requestHeaders: [Header] = [], responseHeaders: [Header] = [], httpVersion: String? = nil, link: LinkTimes? = nil, cmcd: CMCD? = nil
    ) {
        self.link = link
        self.id = id; self.time = time; self.session = session; self.client = client; self.method = method
        self.path = path; self.kind = kind; self.variant = variant; self.rendition = rendition
        self.iFrameVariant = iFrameVariant; self.copy = copy
        self.msn = msn; self.part = part; self.pathway = pathway; self.upstream = upstream; self.matchedRules = matchedRules
        self.decidingRules = decidingRules; self.actions = actions; self.status = status; self.bytesSent = bytesSent
        self.ending = ending; self.duration = duration; self.requestHeaders = requestHeaders
        self.responseHeaders = responseHeaders
        self.httpVersion = httpVersion
        self.cmcd = cmcd
    }

    /// True when a rule changed anything about this request.
    public var isFaulted: Bool { !actions.isEmpty }

    /// Orders records by when their requests arrived, then by id. Ids follow the order records end
    /// in: a short answer asked for after a long one can have the smaller id.
    public static func chronological(_ a: RequestRecord, _ b: RequestRecord) -> Bool {
        (a.time, a.id) < (b.time, b.id)
    }
}
