import Foundation
import PlayerReports
import Players
import Records
import Verdicts

/// One scenario played by one player: what the player reported, what the proxy recorded, and the
/// verdict on the scenario's expectations. What `--report` writes, JUnit and the matrix read.
public struct CellResult: Sendable, Codable {
    public enum Status: String, Sendable, Codable {
        case passed, failed
        /// The player is missing or the run could not start: exit code 2.
        case couldNotRun
        /// Nothing to judge: the player does not play what the scenario faults (an LL-HLS fault
        /// on a player that reads LL as ordinary live) and no request was faulted. `problem`
        /// says why. Not a failure.
        case notApplicable
    }

    public var scenario: String
    /// The error path the scenario exercises (its `reference`).
    public var reference: String?
    public var player: String
    public var playerVersion: String?
    public var session: String
    public var url: String
    public var live: Bool
    public var status: Status
    /// Why it could not run, and what would fix it.
    public var problem: String?
    public var report: PlayerReport?
    public var verdict: Verdict?
    public var reaction: ReactionReport?
    /// The observed reaction in a few words (the matrix cell).
    public var reactionWords: String
    /// The records the failing expectations point at (at most 20), for the terminal and JUnit.
    public var evidenceRecords: [RequestRecord]
    public var requests: Int
    public var faultedRequests: Int
    /// Directory with records.jsonl, session.har, player.log, player.json, reaction.json,
    /// verdict.json: an absolute path for a run, relative to the output folder for the matrix.
    public var evidence: String?
    public var seconds: Double

    public var name: String { "\(scenario) × \(player)" }

    static func couldNotRun(scenario: String, reference: String?, player: String, problem: String) -> CellResult {
        CellResult(
            scenario: scenario, reference: reference, player: player, playerVersion: nil, session: "", url: "",
            live: false, status: .couldNotRun, problem: problem, report: nil, verdict: nil, reaction: nil,
            reactionWords: "could not run", evidenceRecords: [], requests: 0, faultedRequests: 0, evidence: nil, seconds: 0)
    }
}
