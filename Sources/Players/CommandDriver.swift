import Foundation
import PlayerReports

/// Any player the user can start from a command line: the template's words, with `{url}` replaced,
/// run directly (no shell). Exit 0 → played; another status → failed (the status and the last line
/// it printed on stderr); still running at the time limit → timedOut, or played for a live stream
/// (playing until the limit is what a live run asks for). Its output is the evidence.
public struct CommandDriver: PlayerDriver {
    /// The name given, else its program's (`CustomPlayerNames`); `PlayerCatalog.drivers` makes
    /// the names of one run distinct.
    public let name: String
    public let template: CommandTemplate
    public var summary: String { "your command: \(template.text)" }
    public var expectationName: String { PlayerNames.custom }

    /// Throws `CommandTemplate.Problem` when the template is empty, has no `{url}` or has an unclosed quote.
    public init(template: String, name: String? = nil) throws {
        self.init(try CommandTemplate(template), name: name)
    }

    public init(_ template: CommandTemplate, name: String? = nil) {
        self.template = template
        self.name = name ?? CustomPlayerNames.derived(fromProgram: template.executable)
    }

    public func availability() async -> PlayerAvailability {
        guard let path = ProcessRunner.which(template.executable) else {
            return .missing(
                reason: "\(template.executable): not found in PATH",
                install: "install \(template.executable), or give its full path in the command")
        }
        return .ready(version: path)
    }

    public func play(_ request: PlayRequest) async -> PlayerReport {
        let words = template.command(url: request.url)
        let run: PlayerProcess.Run
        do {
            run = try await PlayerProcess.run(
                .init(words[0], Array(words.dropFirst()), timeout: request.timeout), in: request.workDirectory, name: name)
        } catch {
            return PlayerReport(player: name, outcome: .failed, reason: "\(error)")
        }
        let status = run.result.status
        let outcome: PlayerReport.Outcome
        var reason: String?
        if run.timedOut {
            outcome = request.live ? .played : .timedOut
            if !request.live { reason = "still running when the \(OutcomeRules.seconds(request.timeout)) s limit ran out" }
        } else if status == 0 {
            outcome = .played
        } else {
            outcome = .failed
            reason = "exit status \(status)" + (run.stderr.last.map { ": \($0.text)" } ?? "")
        }
        return PlayerReport(
            player: name, version: template.executable, outcome: outcome, reason: reason,
            seconds: run.result.seconds, exitStatus: status, log: ReportLog.text(run.lines))
    }
}
