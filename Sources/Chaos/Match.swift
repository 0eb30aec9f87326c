import Addressing

/// The conditions of a rule; every condition given must hold (nil means "any").
public struct Match: Sendable, Equatable {
    public var kinds: Set<ResourceKind>?
    public var variant: VariantSelector?
    public var rendition: RenditionSelector?
    public var msn: NumberSet?
    /// The part's index in its segment (LL-HLS parts, from 0).
    public var part: NumberSet?
    public var index: NumberSet?
    public var time: TimeWindow?
    public var requests: RequestRange?
    public var after: Duration?
    public var duration: Duration?          // JSON key "for"
    public var probability: Double?
    public var seed: UInt64
    public var copy: Copy?
    /// Content-steering pathways (`PATHWAY-ID`s): only resources of their variants and renditions.
    public var pathways: Set<String>?
    public var session: String?             // an id or a glob (* and ?)
    public var methods: Set<String>?        // extension: "GET", "HEAD"
    public var range: Bool?                 // extension: only (true) or never (false) Range requests
    /// Only (true) or never (false) LL-HLS blocking playlist reloads (requests with `_HLS_msn`).
    public var blocking: Bool?
    /// Conditions on the CMCD the request carried (the player's buffer, startup, state…).
    public var cmcd: CMCDCondition?

    public init(kinds: Set<ResourceKind>? = nil, variant: VariantSelector? = nil, rendition: RenditionSelector? = nil,
                msn: NumberSet? = nil, part: NumberSet? = nil, index: NumberSet? = nil, time: TimeWindow? = nil, requests: RequestRange? = nil,
                after: Duration? = nil, duration: Duration? = nil, probability: Double? = nil, seed: UInt64 = 0,
                copy: Copy? = nil, pathways: Set<String>? = nil, session: String? = nil, methods: Set<String>? = nil, range: Bool? = nil,
                blocking: Bool? = nil) {
        self.kinds = kinds; self.variant = variant; self.rendition = rendition; self.msn = msn; self.part = part; self.index = index
        self.time = time; self.requests = requests; self.after = after; self.duration = duration
        self.probability = probability; self.seed = seed; self.copy = copy; self.pathways = pathways; self.session = session
        self.methods = methods; self.range = range; self.blocking = blocking
    }
}

public enum Copy: String, Sendable, Hashable { case primary, backup }

/// `variant` in match and the selectors of `stripVariants`.
public enum VariantSelector: Sendable, Equatable {
    case highest
    case lowest
    /// All given fields must hold.
    case attributes(index: [Int]?, bandwidth: ClosedRange<Int>?, resolution: String?, name: String?)

    public func selects(_ variant: VariantFacts) -> Bool {
        switch self {
        case .highest: return variant.isHighest
        case .lowest: return variant.isLowest
        case let .attributes(index, bandwidth, resolution, name):
            if let index, !index.contains(variant.index) { return false }
            if let bandwidth, !bandwidth.contains(variant.bandwidth) { return false }
            if let resolution, variant.resolution != resolution { return false }
            if let name, variant.name != name { return false }
            return true
        }
    }
}

/// `rendition` in match and the selectors of `stripRenditions`. Comparisons ignore case for type and language.
public struct RenditionSelector: Sendable, Equatable {
    public var type: String?
    public var language: String?
    public var name: String?

    public init(type: String? = nil, language: String? = nil, name: String? = nil) {
        self.type = type; self.language = language; self.name = name
    }

    public func selects(_ rendition: RenditionFacts) -> Bool {
        if let type, type.uppercased() != rendition.type.uppercased() { return false }
        if let language, language.lowercased() != rendition.language?.lowercased() { return false }
        if let name, name != rendition.name { return false }
        return true
    }
}

/// The shapes of `msn` and `index`: N, {"from": A, "to": B}, {"every": K} or a list of those.
public enum NumberSet: Sendable, Equatable {
    case exactly(Int)
    /// Inclusive; an open end is nil.
    case range(from: Int?, to: Int?)
    /// Every K-th number: n % K == 0.
    case every(Int)
    case anyOf([NumberSet])

    public func contains(_ number: Int) -> Bool {
        switch self {
        case .exactly(let value): return number == value
        case let .range(from, to): return number >= (from ?? .min) && number <= (to ?? .max)
        case .every(let step): return step > 0 && number % step == 0
        case .anyOf(let sets): return sets.contains { $0.contains(number) }
        }
    }
}

/// `time`: a half-open window [from, to) on the media timeline, compared with a segment's start time.
public struct TimeWindow: Sendable, Equatable {
    public var from: Duration?
    public var to: Duration?
    public init(from: Duration? = nil, to: Duration? = nil) { self.from = from; self.to = to }

    public func contains(seconds: Double) -> Bool {
        if let from, seconds < from.seconds { return false }
        if let to, seconds >= to.seconds { return false }
        return true
    }
}

/// `requests`: the n-th matching request of the session, 1-based and inclusive.
public struct RequestRange: Sendable, Equatable {
    public var from: Int
    public var to: Int?
    public init(from: Int = 1, to: Int? = nil) { self.from = from; self.to = to }
    public func contains(_ ordinal: Int) -> Bool { ordinal >= from && ordinal <= (to ?? .max) }
}
