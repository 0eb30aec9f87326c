/// Everything rules remember about one playback session: its clock origin, per-rule counters and
/// the playlist versions it has been served. A value type: the proxy keeps one per session and
/// mutates it under its own lock (or in an actor).
public struct SessionState: Sendable {
    public let sessionID: String
    /// Instant of the session's first request (set by the first `RuleEngine.plan` call).
    public private(set) var start: Duration?
    /// Matching requests seen per rule (the `requests` counter).
    private var matches: [RuleReference: Int] = [:]
    /// Attempts per rule and resource, the request ordinal that seeds `probability`.
    private var attempts: [AttemptKey: Int] = [:]
    /// Playlist versions per upstream URL (for `freeze` and `lag`).
    public var histories: [String: PlaylistHistory] = [:]
    /// Bounds `attempts` on endless live sessions: when full, the attempt counts start again from zero.
    public static let attemptMemory = 100_000

    public init(sessionID: String) { self.sessionID = sessionID }

    /// Time since the session's first request (zero before it).
    public func sessionTime(at now: Duration) -> Duration {
        guard let start else { return .zero }
        return now - start
    }

    mutating func begin(at now: Duration) {
        if start == nil { start = now }
    }

    mutating func countMatch(_ rule: RuleReference) -> Int {
        let count = (matches[rule] ?? 0) + 1
        matches[rule] = count
        return count
    }

    public func matchCount(_ rule: RuleReference) -> Int { matches[rule] ?? 0 }

    mutating func nextAttempt(_ rule: RuleReference, _ resource: String) -> Int {
        if attempts.count >= Self.attemptMemory { attempts.removeAll(keepingCapacity: true) }
        let key = AttemptKey(rule: rule, resource: resource)
        let count = (attempts[key] ?? 0) + 1
        attempts[key] = count
        return count
    }

    /// Records a playlist body fetched from upstream (call for every upstream playlist response).
    public mutating func recordPlaylist(_ body: [UInt8], url: String, at now: Duration) {
        histories[url, default: PlaylistHistory()].record(body, at: now)
    }

    private struct AttemptKey: Hashable {
        var rule: RuleReference
        var resource: String
    }
}

/// Names a rule in plans and events: the scenario it came from and its id.
public struct RuleReference: Sendable, Hashable, CustomStringConvertible {
    public var scenario: String
    public var id: String
    public init(scenario: String, id: String) { self.scenario = scenario; self.id = id }
    public var description: String { "\(scenario)/\(id)" }
}
