import Foundation
import PlayerReports
import Records

/// The observed reaction in a few words, for a cell of the player × scenario matrix:
/// "retried ×2 → down-switch 2→1 → fetched to the end; played",
/// "retried ×3 → gave up after 4 failures; failed: fragLoadError 404", "no reaction needed; played",
/// and under a link its figures: "played; went down 3.4 s after the link fell below variant 2; …".
public enum ReactionWords {
    /// `adaptation`: the verdict's figures when the session had a link (`AdaptationFigures.words`).
    /// Under a link and no rule's fault, the link is the condition and its figures tell the
    /// reaction: the words for faults would mislead ("no fault injected"; "still failing" for a
    /// segment the player abandoned to go down), so they are left out.
    public static func summary(reaction: ReactionReport, player: PlayerReport?, adaptation: AdaptationFigures? = nil) -> String {
        var parts: [String] = []
        if adaptation == nil || reaction.firstFault != nil { parts.append(proxySide(reaction)) }
        if let player { parts.append(playerSide(player)) }
        if let adaptation { parts.append(adaptation.words) }
        return parts.joined(separator: "; ")
    }

    /// What the records show: the reaction steps after the first fault (or failure) in time order,
    /// then how the requests ended.
    static func proxySide(_ reaction: ReactionReport) -> String {
        guard reaction.requests > 0 else { return "no requests" }
        let trigger = reaction.firstFault ?? reaction.firstFailure
        let start = trigger?.time ?? .distantPast
        var steps: [(time: Date, words: String)] = []

        // Retry series carry no time of their own: the first reaction gives it when it was a retry;
        // otherwise they are put after the other steps.
        if let largest = reaction.retries.max(by: { $0.retries < $1.retries }) {
            let time = reaction.firstReaction.flatMap { $0.kind == .retry ? $0.time : nil } ?? .distantFuture
            let others = reaction.retries.count > 1 ? " (\(reaction.retries.count) resources)" : ""
            steps.append((time, "retried ×\(largest.retries)\(others)"))
        }
        for failover in reaction.failovers where failover.time >= start {
            steps.append((failover.time, "failover to the backup of variant \(failover.variant)" + (failover.succeeded ? "" : " (failed)")))
        }
        // A move to another content-steering pathway is told as such, not as the switch to its twin variant.
        let moves = reaction.steering?.moves.filter { $0.time >= start } ?? []
        for move in moves.prefix(3) { steps.append((move.time, "pathway \(move.from)→\(move.to)")) }
        let moveEnds = Set(moves.compactMap(\.records.last))
        let switches = reaction.switches.filter { $0.time >= start && !moveEnds.contains($0.records.last ?? 0) }
        for change in switches.prefix(3) {
            let name = change.direction == .lateral ? "lateral switch" : "\(change.direction.rawValue)-switch"
            steps.append((change.time, "\(name) \(change.from)→\(change.to)"))
        }
        if switches.count > 3 { steps.append((switches[3].time, "\(switches.count - 3) more switches")) }
        let skippedCount = reaction.skipped.reduce(0) { $0 + $1.to - $1.from + 1 }
        if let first = reaction.skipped.first {
            steps.append((first.time, "skipped \(skippedCount) segment\(skippedCount == 1 ? "" : "s")"))
        }
        // Stable for equal times: the order above.
        let ordered = steps.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element.words)

        var ending: String?
        switch reaction.stop?.kind {
        case .gaveUp?:
            let failures = reaction.stop.map { stop in stop.records.filter(reaction.failures.contains).count } ?? 0
            ending = "gave up after \(failures) failure\(failures == 1 ? "" : "s")"
        case .finished?: ending = "fetched to the end"
        case .stopped?: ending = "stopped requesting"
        case nil: ending = nil
        }

        if ordered.isEmpty {
            let quiet: String
            switch reaction.outcome {
            case .clean: quiet = "no fault injected"
            case .continued: quiet = "no reaction needed"
            case .recovered: quiet = "recovered without retry or switch"
            case .unrecovered: quiet = "no retry, switch or failover; still failing"
            case .gaveUp: quiet = "no retry, switch or failover"
            }
            return [quiet, ending].compactMap { $0 }.joined(separator: ", ")
        }
        return (ordered + [ending].compactMap { $0 }).joined(separator: " → ")
    }

    /// "played", "failed: fragLoadError 404", "stalled", "timed out".
    static func playerSide(_ player: PlayerReport) -> String {
        switch player.outcome {
        case .played: return "played"
        case .stalled: return "stalled"
        case .timedOut: return "timed out"
        case .failed:
            let error = player.errors.last(where: \.fatal) ?? player.errors.last
            if let error { return "failed: " + error.kind + (error.code.map { " \($0)" } ?? "") }
            return player.reason.map { "failed: \($0)" } ?? "failed"
        }
    }
}
