import Foundation
import HLS

/// The LL-HLS attributes shared by every `/ll/` media playlist (rfc8216bis 6.2.4 wants the
/// same EXT-X-SERVER-CONTROL in all of them).
struct LowLatencySettings: Sendable {
    /// Longest part of any rendition, rounded up to milliseconds.
    var partTarget: Double
    var partHoldBack: Double { Self.milliseconds(3 * partTarget) }
    /// Six target durations: the least the spec allows.
    var canSkipUntil: Double
    /// Complete segments whose parts are still listed (the spec removes parts more than
    /// three target durations from the end).
    var segmentsWithParts: Int

    static func milliseconds(_ seconds: Double) -> Double {
        (seconds * 1000).rounded(.up) / 1000
    }
}

/// Writes the `/ll/` media playlist of one rendition as it is at one instant: a window of
/// complete segments, the parts of the last few and of the segment in progress, a preload
/// hint for the next part and rendition reports for the other renditions. With `skip`, a
/// delta update (rfc8216bis 6.2.5.1).
struct LowLatencyPlaylistWriter: Sendable {
    let rendition: LowLatencyRendition
    let timeline: LowLatencyTimeline
    let settings: LowLatencySettings
    /// URIs of the other renditions' playlists, relative to this one.
    let reportURIs: [String]

    func text(at now: Date, skip: Bool) -> String {
        let vod = rendition.vod
        let count = rendition.segmentCount
        let latest = timeline.latestPart(at: now)
        let lastComplete = timeline.latestCompleteMSN(at: now)
        let window = max(0, lastComplete - timeline.live.windowSize + 1)...lastComplete
        let skipped = skip ? skippedSegmentCount(window: window) : 0

        var lines = ["#EXTM3U"]
        for line in vod.headerLines {
            if line.hasPrefix("#EXT-X-VERSION:") {
                lines.append("#EXT-X-VERSION:9")  // EXT-X-SKIP needs 9
            } else {
                lines.append(line)
            }
            if line.hasPrefix("#EXT-X-TARGETDURATION:") {
                lines.append("#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=\(format(settings.canSkipUntil)),"
                    + "PART-HOLD-BACK=\(format(settings.partHoldBack))")
                lines.append("#EXT-X-PART-INF:PART-TARGET=\(format(settings.partTarget))")
                lines.append("#EXT-X-MEDIA-SEQUENCE:\(window.lowerBound)")
                lines.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(window.lowerBound / count)")
            }
        }
        if skipped > 0 {
            lines.append("#EXT-X-SKIP:SKIPPED-SEGMENTS=\(skipped)")
        }
        let loopDuration = Double(count) * timeline.live.segmentDuration
        for msn in window.dropFirst(skipped) {
            if msn % count == 0, msn != window.lowerBound {
                lines.append("#EXT-X-DISCONTINUITY")
            }
            let date = timeline.live.streamStart.addingTimeInterval(Double(msn / count) * loopDuration + offset(ofVODSegment: msn % count))
            lines.append("#EXT-X-PROGRAM-DATE-TIME:\(ProgramDateTime.format(date))")
            if msn > lastComplete - settings.segmentsWithParts {
                lines += partLines(msn: msn, through: timeline.partsPerSegment - 1)
            }
            let segment = vod.segments[msn % count]
            lines.append(segment.extinf)
            lines.append("seg-\(msn).\(segment.fileExtension)")
        }
        let inProgress = lastComplete + 1
        let next = timeline.position(ofOrdinal: timeline.ordinal(of: latest) + 1)
        // The segment in progress starts the next loop: its discontinuity goes before its first
        // line, a part or (before any part is out) the hint of part 0. A hint without it would
        // be numbered in the old discontinuity and its part, once listed, in the new one (hls.js
        // then reports a "discontinuity sequence mismatch").
        if inProgress % count == 0, latest.msn == inProgress || next.msn == inProgress {
            lines.append("#EXT-X-DISCONTINUITY")
        }
        if latest.msn == inProgress {
            lines += partLines(msn: inProgress, through: latest.index)
        }
        lines.append("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"\(Self.partURI(next))\"")
        for uri in reportURIs {
            lines.append("#EXT-X-RENDITION-REPORT:URI=\"\(uri)\",LAST-MSN=\(latest.msn),LAST-PART=\(latest.index)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func partURI(_ part: PartPosition) -> String {
        "part-\(part.msn).\(part.index).m4s"
    }

    /// Segments at the start of the window that end at least CAN-SKIP-UNTIL before the end
    /// of the last complete segment, stopping before the first `EXT-X-DISCONTINUITY`.
    ///
    /// A delta update keeps the full playlist's `EXT-X-DISCONTINUITY-SEQUENCE`, and a client
    /// that numbers the segments it lists from that tag (hls.js 1.6.15 does) would miss a
    /// discontinuity hidden in the skipped segments and number every later segment one
    /// lower: hls.js then reports "discontinuity sequence mismatch". Skipping fewer segments is
    /// always allowed, and then every reading of the tag gives the same numbers.
    func skippedSegmentCount(window: ClosedRange<Int>) -> Int {
        let count = rendition.segmentCount
        let durations = window.map { rendition.vod.segments[$0 % count].duration }
        var remaining = durations.reduce(0, +)
        var skipped = 0
        for duration in durations {
            remaining -= duration
            guard remaining >= settings.canSkipUntil else { break }
            skipped += 1
        }
        let firstDiscontinuity = (window.lowerBound / count + 1) * count
        return min(skipped, firstDiscontinuity - window.lowerBound)
    }

    private func partLines(msn: Int, through lastIndex: Int) -> [String] {
        guard lastIndex >= 0 else { return [] }
        return (0...lastIndex).map { index in
            let part = rendition.parts[msn % rendition.segmentCount][index]
            return "#EXT-X-PART:DURATION=\(format(part.duration)),URI=\"\(Self.partURI(PartPosition(msn: msn, index: index)))\""
                + (part.independent ? ",INDEPENDENT=YES" : "")
        }
    }

    private func offset(ofVODSegment index: Int) -> Double {
        rendition.vod.segments.prefix(index).reduce(0) { $0 + $1.duration }
    }

    private func format(_ value: Double) -> String {
        String(format: "%.3f", value)
    }
}
