import Foundation
import PlayerReports

/// What every native driver does around its player: find out whether it is installed, start it,
/// and turn what it printed into a report (stalls from the progress it showed, the outcome from
/// `OutcomeRules`).
extension PlayerDriver {
    /// A player that is not installed gives a failed report naming the command that installs it;
    /// one that cannot be started, a failed report with the reason. Otherwise `read` makes the
    /// report of the run, given the version the player printed.
    func playInstalled(
        launch: () async throws -> PlayerProcess.Run, read: (PlayerProcess.Run, _ version: String) -> PlayerReport
    ) async -> PlayerReport {
        let version: String
        switch await availability() {
        case .ready(let found): version = found
        case .missing(let reason, let install):
            return PlayerReport(player: name, outcome: .failed, reason: "\(reason); install it with: \(install)")
        }
        do {
            return read(try await launch(), version)
        } catch {
            return PlayerReport(player: name, version: version, outcome: .failed, reason: "\(error)")
        }
    }
}

extension PlayerProcess.Run {
    typealias Outcome = (outcome: PlayerReport.Outcome, reason: String?)

    /// Stalls and the outcome of what the player printed. A run the driver stopped (or the
    /// watchdog) has no exit status of its own to judge. `rebuffering`: the player played at the
    /// clock's pace and its log announces rebuffering, so its stalls are the spans it announced
    /// (`Stalls.announced`); otherwise spans of `stallThreshold` seconds without progress. The
    /// outcome's "no progress for the last N s" reads progress either way.
    func judge(
        _ facts: LogFacts, request: PlayRequest, stallThreshold: Double, rebuffering: Bool = false
    ) -> (stalls: [PlayerReport.Stall], outcome: Outcome) {
        let stuck = Stalls.detect(facts.progress, end: result.seconds, threshold: stallThreshold)
        let ongoing = Stalls.ongoing(stuck, end: result.seconds)
        let outcome = OutcomeRules(
            live: request.live, timeout: request.timeout, timedOut: timedOut,
            exitStatus: timedOut || stoppedByDriver ? nil : result.status, facts: facts,
            ongoingStall: ongoing
        ).decide()
        return (rebuffering ? Stalls.announced(facts, end: result.seconds, stuck: ongoing) : stuck, outcome)
    }

    /// `version` is what the player printed; the engine its log showed (`facts.engine`, or
    /// `engine` when the driver names it) follows after a comma.
    func report(
        player: String, version: String, engine: String? = nil, facts: LogFacts, stalls: [PlayerReport.Stall],
        outcome: Outcome, log: [LogLine]
    ) -> PlayerReport {
        PlayerReport(
            player: player, version: [version, engine ?? facts.engine].compactMap { $0 }.joined(separator: ", "),
            outcome: outcome.outcome, reason: outcome.reason, errors: facts.errors,
            stalls: stalls, switches: facts.switches, position: facts.position, seconds: result.seconds,
            exitStatus: result.status, log: ReportLog.text(log))
    }
}
