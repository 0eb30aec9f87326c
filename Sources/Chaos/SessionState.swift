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
    /// Playlist versions per resource (for `freeze` and `lag`), keyed by what the playlist is, not
    /// by its URL's volatile query (`_HLS_msn`, rotating tokens), which would start a new history
    /// on every reload.
    public private(set) var histories: [String: PlaylistHistory] = [:]
    /// Bytes all histories may hold together; the oldest versions go first.
    public let historyBudget: Int
    public private(set) var historyBytes = 0
    /// Bounds `attempts` on endless live sessions: when full, the attempt counts start again from zero.
    public static let attemptMemory = 100_000

    public init(sessionID: String, historyBudget: Int = 4 * 1024 * 1024) {
        self.sessionID = sessionID
        self.historyBudget = historyBudget
    }

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

    /// Forgets the request counters and attempts of the named scenarios: a scenario set again on a
    /// running session counts from zero, like its clock.
    public mutating func resetCounters(scenarios names: Set<String>) {
        matches = matches.filter { !names.contains($0.key.scenario) }
        attempts = attempts.filter { !names.contains($0.key.rule.scenario) }
    }

    mutating func nextAttempt(_ rule: RuleReference, _ resource: String) -> Int {
        if attempts.count >= Self.attemptMemory { attempts.removeAll(keepingCapacity: true) }
        let key = AttemptKey(rule: rule, resource: resource)
        let count = (attempts[key] ?? 0) + 1
        attempts[key] = count
        return count
    }

    /// Records a playlist body fetched from upstream (call for every upstream playlist response).
    /// Versions older than `horizon` that no rule can ask for are dropped (`RuleEngine.historyHorizon`).
    /// Returns how many old versions were forgotten to stay within `historyBudget`.
    @discardableResult
    public mutating func recordPlaylist(_ body: [UInt8], resource: String, at now: Duration, horizon: Duration? = nil) -> Int {
        historyBytes += histories[resource, default: PlaylistHistory()].record(body, at: now)
        if let horizon { historyBytes -= histories[resource]!.forget(before: now - horizon) }
        var forgotten = 0
        while historyBytes > historyBudget, let oldest = oldestHistory(keeping: resource) {
            historyBytes -= histories[oldest]!.dropOldest()
            if histories[oldest]!.versions.isEmpty { histories[oldest] = nil }
            forgotten += 1
        }
        return forgotten
    }

    /// The history whose oldest version is the oldest of all; the newest version of `resource`
    /// (just recorded, about to be served) is never the one dropped.
    private func oldestHistory(keeping resource: String) -> String? {
        var oldest: (key: String, seen: Duration)?
        for (key, history) in histories {
            guard let seen = history.oldestSeen else { continue }
            if key == resource && history.versions.count == 1 { continue }
            if oldest == nil || seen < oldest!.seen { oldest = (key, seen) }
        }
        return oldest?.key
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
