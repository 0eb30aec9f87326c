import Foundation
import PlayerReports

/// How a native player's run ended, from what the run and the log showed. Pure, shared by the
/// drivers so that every player is judged by the same rules:
///
/// 1. a fatal error the player reported → `failed` with it;
/// 2. stopped at the time limit: nothing ever played, or no progress for the last stall threshold →
///    `stalled`; a live stream still advancing → `played`; a VOD still advancing → `timedOut`;
/// 3. exited by itself: a failure status, or nothing played → `failed`; reached the end → `played`;
///    otherwise `failed` (it stopped before the end).
struct OutcomeRules {
    var live: Bool
    var timeout: Double
    /// The watchdog stopped it at the time limit.
    var timedOut: Bool
    /// The player's exit status, when it exited by itself (nil when the driver or the watchdog stopped it).
    var exitStatus: Int32?
    var facts: LogFacts
    /// The stall still going when the run ended, if any.
    var ongoingStall: PlayerReport.Stall?

    func decide() -> (outcome: PlayerReport.Outcome, reason: String?) {
        if let fatal = facts.fatal { return (.failed, fatal) }
        let position = facts.position.map { Self.seconds($0) }
        if timedOut {
            guard facts.started else {
                return (.stalled, "nothing played within the \(Self.seconds(timeout)) s limit" + Self.detail(facts.lastError))
            }
            if let stall = ongoingStall {
                return (.stalled, "no progress for the last \(Self.seconds(stall.duration)) s, at \(position ?? "?") s of media"
                    + Self.detail(facts.lastError))
            }
            if live { return (.played, nil) }
            return (.timedOut, "still playing at \(position ?? "?") s of media when the \(Self.seconds(timeout)) s limit ran out")
        }
        if let status = exitStatus, status != 0 {
            return (.failed, "exit status \(status)" + Self.detail(facts.lastError))
        }
        guard facts.started else { return (.failed, "nothing played" + Self.detail(facts.lastError)) }
        if facts.ended { return (.played, nil) }
        return (.failed, "stopped at \(position ?? "?") s of media without reaching the end" + Self.detail(facts.lastError))
    }

    static func detail(_ error: String?) -> String {
        guard let error, !error.isEmpty else { return "" }
        return " (last error: \(error))"
    }

    /// 12.5 → "12.5", 6 → "6".
    static func seconds(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
