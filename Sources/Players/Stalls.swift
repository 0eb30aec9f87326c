import Foundation
import PlayerReports

/// Stalls read off position samples: spans of at least `threshold` seconds in which the media
/// position did not advance. Pure; the drivers use three segment durations (6 s for 2 s segments).
public enum Stalls {
    public static let defaultThreshold = 6.0

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

    /// The stall that lasted until `end`, if the last one did.
    public static func ongoing(_ stalls: [PlayerReport.Stall], end: Double) -> PlayerReport.Stall? {
        guard let last = stalls.last, abs(last.at + last.duration - end) < 0.001 else { return nil }
        return last
    }
}
