import Foundation

/// What every native driver does around its player: find out whether it is installed, and turn
/// what it printed into a report (stalls from the progress it showed, the outcome from `OutcomeRules`).
enum Installed {
    case version(String)
    /// The report to return: not installed, and the command that installs it.
    case missing(PlayerReport)

    static func check(_ driver: some PlayerDriver) async -> Installed {
        switch await driver.availability() {
        case .ready(let version): .version(version)
        case .missing(let reason, let install):
            .missing(PlayerReport(player: driver.name, outcome: .failed, reason: "\(reason); install it with: \(install)"))
        }
    }
}

extension PlayerProcess.Run {
    typealias Outcome = (outcome: PlayerReport.Outcome, reason: String?)

    /// Stalls and the outcome of what the player printed. A run the driver stopped (or the
    /// watchdog) has no exit status of its own to judge.
    func judge(_ facts: LogFacts, request: PlayRequest, stallThreshold: Double) -> (stalls: [PlayerReport.Stall], outcome: Outcome) {
        let stalls = Stalls.detect(facts.progress, end: result.seconds, threshold: stallThreshold)
        let outcome = OutcomeRules(
            live: request.live, timeout: request.timeout, timedOut: timedOut,
            exitStatus: timedOut || stoppedByDriver ? nil : result.status, facts: facts,
            ongoingStall: Stalls.ongoing(stalls, end: result.seconds)
        ).decide()
        return (stalls, outcome)
    }

    func report(
        player: String, version: String?, facts: LogFacts, stalls: [PlayerReport.Stall], outcome: Outcome, log: [LogLine]
    ) -> PlayerReport {
        PlayerReport(
            player: player, version: version, outcome: outcome.outcome, reason: outcome.reason, errors: facts.errors,
            stalls: stalls, switches: facts.switches, position: facts.position, seconds: result.seconds,
            exitStatus: result.status, log: ReportLog.text(log))
    }
}
