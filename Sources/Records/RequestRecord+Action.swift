extension RequestRecord {
    /// One thing a rule did to a request, as data: what (`kind` and its values) and the rule that
    /// decided it. Its JSON is `{"kind", "rule", <values>, "words"}`; `words` is written for people
    /// (`words` below, the one place they are made) and never read back: decoding makes them anew.
    public struct Action: Sendable, Equatable {
        public var kind: Kind
        /// The rule that decided it, "scenario/rule-id"; nil for actions of records written before
        /// actions were data.
        public var rule: String?

        public init(_ kind: Kind, rule: String?) {
            self.kind = kind
            self.rule = rule
        }

        /// What was done, with the values that say how much.
        public enum Kind: Sendable, Equatable {
            /// The response started this much later.
            case delay(seconds: Double)
            /// Answered with this status, without asking the origin.
            case status(Int)
            /// No answer; with a time, the connection was closed after it.
            case hang(seconds: Double?)
            case throttle(bytesPerSecond: Int)
            /// `afterBytes` body bytes, then nothing for `seconds`, then the rest.
            case stall(afterBytes: Int, seconds: Double)
            /// A TCP RST at that point.
            case reset(Cut)
            /// A FIN at that point, short of the promised length.
            case truncate(Cut)
            case corrupt(bytes: Int)
            case contentType(String)
            /// `hops` redirects before the resource, or redirects forever (`loop`).
            case redirect(status: Int, hops: Int, loop: Bool)
            /// 501 to a request with a Range header.
            case rejectRanges
            /// A change to the content (playlist surgery, key or session-data damage) by its rule
            /// schema name: "gap", "freeze", "key", "steering"…
            case content(String)
            /// An action of a record written before actions were data: only its words are known.
            case unknown(words: String)
        }

        /// Where a reset or a truncation cut the response.
        public enum Cut: Sendable, Equatable {
            case beforeHeaders
            case afterBytes(Int)
            /// At this fraction of the body's length.
            case fraction(Double)
        }

        /// The JSON `kind`: "delay", "status", …, a content action's schema name, or "unknown".
        public var name: String { kind.name }

        /// The action for people: "delay 2s", "status 503", "throttle 37500 B/s", "gap". The CLI,
        /// the reaction report, HAR comments and the dashboard (through the JSON) all show these.
        public var words: String { kind.words }
    }
}

extension RequestRecord.Action.Kind {
    public var name: String {
        switch self {
        case .delay: "delay"
        case .status: "status"
        case .hang: "hang"
        case .throttle: "throttle"
        case .stall: "stall"
        case .reset: "reset"
        case .truncate: "truncate"
        case .corrupt: "corrupt"
        case .contentType: "contentType"
        case .redirect: "redirect"
        case .rejectRanges: "rejectRanges"
        case .content(let name): name
        case .unknown: "unknown"
        }
    }

    var words: String {
        typealias Words = RequestRecord.Action
        switch self {
        case .delay(let seconds): return "delay \(Words.number(seconds))s"
        case .status(let code): return "status \(code)"
        case .hang(let seconds): return seconds.map { "hang \(Words.number($0))s" } ?? "hang"
        case .throttle(let rate): return "throttle \(rate) B/s"
        case .stall(let after, let seconds): return "stall \(Words.number(seconds))s after \(after) bytes"
        case .reset(let cut): return "reset " + cut.words
        case .truncate(let cut): return "truncate " + cut.words
        case .corrupt(let bytes): return "corrupt \(bytes) bytes"
        case .contentType(let type): return "content-type \(type)"
        case .redirect(let status, _, true): return "redirect \(status) loop"
        case .redirect(let status, let hops, false): return "redirect \(status) × \(hops)"
        case .rejectRanges: return "reject ranges (501)"
        case .content(let name): return name
        case .unknown(let words): return words
        }
    }
}

extension RequestRecord.Action.Cut {
    var words: String {
        switch self {
        case .beforeHeaders: "before headers"
        case .afterBytes(let count): "after \(count) bytes"
        case .fraction(let fraction): "at \(RequestRecord.Action.number(fraction)) of the body"
        }
    }
}

extension RequestRecord.Action {
    /// "2", "0.25", "1.5": whole numbers without ".0".
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return "\(value)"
    }
}
