import Foundation
import PlayerReports

/// Stalls read off position samples: spans of at least `threshold` seconds in which the media
/// position did not advance. Pure; the drivers use three segment durations (6 s for 2 s segments).
/// A player that plays at the clock's pace and announces its rebuffering has its spans instead
/// (`announced`).
public enum Stalls {
    public static let defaultThreshold = 6.0
    /// Announced spans shorter than this are left out: under what the drivers can time (a
    /// browser's 0–30 ms `waiting` blips at 8×; gst-launch's pause and resume read in one 200 ms poll).
    public static let shortest = 0.1

    /// Spans without progress between the first advance and `end` (seconds since start). The wait
    /// before the first advance is startup, not a stall (a player that never starts is judged
    /// apart). A stall still going at `end` lasts until `end`. Samples without a time are ignored.
    public static func detect(_ samples: [ProgressSample], end: Double, threshold: Double = defaultThreshold) -> [PlayerReport.Stall] {
        var stalls: [PlayerReport.Stall] = []
        var furthest: Double?
        var lastAdvance: Double?
        for sample in samples {
            guard let time = sample.time else { continue }
            if let position = furthest, sample.position <= position + 0.001 { continue }
            if let last = lastAdvance, time - last >= threshold {
                stalls.append(.init(at: last, duration: time - last))
            }
            // The first sample is where playback starts; only movement after it counts as playing.
            if furthest != nil || sample.position > 0 { lastAdvance = time }
            furthest = sample.position
        }
        if let last = lastAdvance, end - last >= threshold {
            stalls.append(.init(at: last, duration: end - last))
        }
        return stalls
    }

    /// The stalls of a player that announces its rebuffering (`LogFacts.rebuffers`): every span it
    /// announced (at least `shortest`), one still open lasting until `end`; and `stuck`, the progress stall still going at
    /// `end` (from `detect`), when no span covers it (a player stuck for good may never announce it).
    public static func announced(_ facts: LogFacts, end: Double, stuck: PlayerReport.Stall?) -> [PlayerReport.Stall] {
        var stalls = facts.rebuffers
        if let since = facts.rebufferingSince {
            stalls.append(.init(at: since, duration: max(0, end - since)))
        } else if let stuck, stalls.allSatisfy({ $0.at + $0.duration <= stuck.at + 0.001 }) {
            stalls.append(stuck)
        }
        return stalls.filter { $0.duration >= shortest }.sorted { $0.at < $1.at }
            .map { .init(at: round3($0.at), duration: round3($0.duration)) }
    }

    private static func round3(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    /// The stall that lasted until `end`, if the last one did.
    public static func ongoing(_ stalls: [PlayerReport.Stall], end: Double) -> PlayerReport.Stall? {
        guard let last = stalls.last, abs(last.at + last.duration - end) < 0.001 else { return nil }
        return last
    }
}
