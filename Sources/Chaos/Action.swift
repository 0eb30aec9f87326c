/// What a rule does. `delay` combines with anything; at most one wire action per rule; playlist
/// actions may be combined with each other (except gap/remove and freeze/lag) but not with a wire action.
public struct Action: Sendable, Equatable {
    public var delay: Duration?
    public var wire: WireAction?
    public var playlist: [PlaylistAction]

    public init(delay: Duration? = nil, wire: WireAction? = nil, playlist: [PlaylistAction] = []) {
        self.delay = delay
        self.wire = wire
        self.playlist = playlist
    }
}

public struct HTTPHeaderField: Sendable, Equatable {
    public var name: String
    public var value: String
    public init(name: String, value: String) { self.name = name; self.value = value }
}

/// Faults the proxy applies on the wire to the response of the matched request.
public enum WireAction: Sendable, Equatable {
    /// Answer with this status (upstream is not asked); extra headers in file order; a body or none.
    case status(code: Int, headers: [HTTPHeaderField], body: String?)
    /// Accept the request and never answer; with a duration, close the connection after it.
    case hang(Duration?)
    /// Cap the body to this many bytes per second.
    case throttle(bytesPerSecond: Int)
    /// Send `afterBytes` bytes of the body, then nothing for `duration`, then the rest.
    case stall(afterBytes: Int, duration: Duration)
    /// Abort the connection with a TCP RST.
    case reset(ResetPoint)
    /// Send fewer bytes than Content-Length promises, then close.
    case truncate(Truncation)
    /// Damage `bytes` bytes of the body at offsets fixed by the seed (see `Corruption`).
    case corrupt(bytes: Int, seed: UInt64)
    /// Replace the Content-Type header.
    case contentType(String)
    /// Redirect `hops` times before serving the resource; `loop` redirects forever.
    case redirect(status: Int, hops: Int, loop: Bool)
    /// Answer 501 Not Implemented to a request with a Range header.
    case rejectRanges
}

public enum ResetPoint: Sendable, Equatable {
    case beforeHeaders
    case afterBytes(Int)
}

public enum Truncation: Sendable, Equatable {
    case afterBytes(Int)
    case fraction(Double)

    /// How many body bytes to send before closing; nil when a fraction meets an unknown length.
    public func byteLimit(contentLength: Int?) -> Int? {
        switch self {
        case .afterBytes(let count): return contentLength.map { min(count, max($0, 0)) } ?? count
        case .fraction(let fraction):
            guard let contentLength, contentLength >= 0 else { return nil }
            // Through Double: a length near Int.max must not round up past it and trap.
            let limit = (Double(contentLength) * fraction).rounded(.down)
            return limit >= Double(contentLength) ? contentLength : Int(limit)
        }
    }
}

/// Changes to the content of a playlist (or of a key / session-data body) served to the client.
public enum PlaylistAction: Sendable, Equatable {
    case stripVariants([VariantSelector])
    case stripRenditions([RenditionSelector])
    /// Matched segments get EXT-X-GAP; fetching one answers `status` (404 or 410).
    case gap(status: Int)
    /// Matched segments leave the playlist.
    case remove
    /// Serve the version seen just before the rule's window opened.
    case freeze
    /// Serve the playlist as the origin had it this long ago.
    case lag(Duration)
    case sequenceShift(Int)
    case targetDuration(Int)
    case endList(EndListChange)
    case malform(Malformation)
    case sessionData(SessionDataDamage)
    case key(KeyDamage)
    case backupVariants
    /// The origin is asked without the request's LL-HLS delivery directives (`_HLS_msn`,
    /// `_HLS_part`, `_HLS_skip`): it answers at once, with its whole current playlist, as if it
    /// ignored them.
    case ignoreDirectives
    /// LL-HLS damage to the served media playlist (see `LowLatencyDamage`).
    case lowLatency(LowLatencyDamage)
    /// Damage to a content-steering manifest (see `SteeringDamage`).
    case steering(SteeringDamage)

    /// The JSON key of the action, for messages and events.
    public var name: String {
        switch self {
        case .stripVariants: "stripVariants"
        case .stripRenditions: "stripRenditions"
        case .gap: "gap"
        case .remove: "remove"
        case .freeze: "freeze"
        case .lag: "lag"
        case .sequenceShift: "sequenceShift"
        case .targetDuration: "targetDuration"
        case .endList: "endList"
        case .malform: "malform"
        case .sessionData: "sessionData"
        case .key: "key"
        case .backupVariants: "backupVariants"
        case .ignoreDirectives: "ignoreDirectives"
        case .lowLatency: "lowLatency"
        case .steering: "steering"
        }
    }
}

public enum EndListChange: String, Sendable, Equatable { case add, remove }

public enum Malformation: String, Sendable, Equatable, CaseIterable {
    case noHeader = "no-header"
    case garbageLine = "garbage-line"
    case badAttribute = "bad-attribute"
    case extinfOverTarget = "extinf-over-target"
    case duplicateVersion = "duplicate-version"
    case cut = "cut"
}

public enum SessionDataDamage: String, Sendable, Equatable, CaseIterable { case malformed }

public enum KeyDamage: String, Sendable, Equatable, CaseIterable {
    case wrongLength = "wrong-length"
    case wrongBytes = "wrong-bytes"
}
