import Foundation

/// One expectation checked: what was expected, what was seen, and the records that show it.
public struct ExpectationResult: Sendable, Codable, Equatable {
    /// The expectation in words ("retried the faulted resource at most 10 times").
    public var expectation: String
    /// Its check key ("retried").
    public var check: String
    /// True for a documented expectation (what a conforming player does); false for a per-player one.
    public var documented: Bool
    /// The players a per-player expectation is about; empty when documented.
    public var players: [String]
    /// The reference or reason given with the expectation.
    public var note: String?
    public var passed: Bool
    /// What was seen, in words ("2 retries of segment 8 of variant 2 (503, 503, 200)").
    public var observed: String
    /// Ids of the request records that show it (empty for checks of the player's report).
    public var evidence: [UInt64]

    public init(expectation: String, check: String, documented: Bool, players: [String] = [], note: String? = nil,
                passed: Bool, observed: String, evidence: [UInt64] = []) {
        self.expectation = expectation; self.check = check; self.documented = documented; self.players = players
        self.note = note; self.passed = passed; self.observed = observed; self.evidence = evidence
    }
}

/// Every expectation of a run checked, and the outcome in one line.
public struct Verdict: Sendable, Codable, Equatable {
    public var results: [ExpectationResult]
    /// Every expectation held (also true when there were none: `summary` says so).
    public var passed: Bool
    /// "all 4 expectations held", "1 of 4 expectations failed: switched down within 20s of the first fault".
    public var summary: String
    /// How the player adapted to the session's link; nil (and absent from the JSON) without a link.
    public var adaptation: AdaptationFigures?

    public init(results: [ExpectationResult], passed: Bool, summary: String, adaptation: AdaptationFigures? = nil) {
        self.results = results; self.passed = passed; self.summary = summary; self.adaptation = adaptation
    }

    /// Builds the verdict of `results`; `faultInjected` false adds that no fault was injected.
    public init(results: [ExpectationResult], faultInjected: Bool) {
        let failed = results.filter { !$0.passed }
        var summary: String
        if results.isEmpty {
            summary = "no expectations to check (passed)"
        } else if failed.isEmpty {
            summary = results.count == 1 ? "the expectation held" : "all \(results.count) expectations held"
        } else {
            summary = "\(failed.count) of \(results.count) expectation\(results.count == 1 ? "" : "s") failed: "
                + failed.map(\.expectation).joined(separator: "; ")
        }
        if !faultInjected { summary += " (no fault was injected)" }
        self.init(results: results, passed: failed.isEmpty, summary: summary)
    }
}
