import Foundation
import HLS

/// The simulated live timeline shared by every rendition of every flavour.
///
/// The live stream loops over the VOD. Media sequence number (MSN) 0 is the first segment
/// ever; segment `msn` shows VOD segment `msn % count` and becomes available when the
/// clock passes `streamStart + (msn + 1) * segmentDuration`. The stream pretends to have
/// started one window before the origin did, so a full window is there at once.
struct LiveTimeline: Sendable {
    let streamStart: Date
    let segmentDuration: Double
    let windowSize: Int

    init(originStart: Date, segmentDuration: Double, windowSize: Int) {
        self.segmentDuration = segmentDuration
        self.windowSize = windowSize
        self.streamStart = originStart.addingTimeInterval(-Double(windowSize) * segmentDuration)
    }

    /// The newest MSN whose segment is complete at `now` (never below 0).
    func latestMSN(at now: Date) -> Int {
        let elapsed = now.timeIntervalSince(streamStart) / segmentDuration
        guard elapsed.isFinite, elapsed >= 1 else { return 0 }
        return elapsed >= Double(Int.max / 2) ? Int.max / 2 : Int(elapsed.rounded(.down)) - 1
    }

    func window(at now: Date) -> ClosedRange<Int> {
        let latest = latestMSN(at: now)
        return max(0, latest - windowSize + 1)...latest
    }
}

/// Writes the live media playlist of one rendition for a window of MSNs.
struct LiveMediaPlaylistWriter: Sendable {
    let vod: VODMediaPlaylist
    let timeline: LiveTimeline

    func text(window: ClosedRange<Int>) -> String {
        let count = vod.segments.count
        // Loop points (MSN k*count, k >= 1) at or before the first segment no longer show a
        // DISCONTINUITY tag in the window; the sequence number counts them instead.
        let discontinuitySequence = window.lowerBound / count
        var lines: [String] = ["#EXTM3U"]
        var wroteSequence = false
        func writeSequence() {
            lines.append("#EXT-X-MEDIA-SEQUENCE:\(window.lowerBound)")
            lines.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence)")
            wroteSequence = true
        }
        for line in vod.headerLines {
            lines.append(line)
            if line.hasPrefix("#EXT-X-TARGETDURATION:") { writeSequence() }
        }
        if !wroteSequence { writeSequence() }
        let loopDuration = Double(count) * timeline.segmentDuration
        var offsets: [Double] = []
        var elapsed = 0.0
        for segment in vod.segments {
            offsets.append(elapsed)
            elapsed += segment.duration
        }
        for msn in window {
            let index = msn % count
            let loop = msn / count
            if index == 0, msn != window.lowerBound {
                lines.append("#EXT-X-DISCONTINUITY")
            }
            let date = timeline.streamStart.addingTimeInterval(Double(loop) * loopDuration + offsets[index])
            lines.append("#EXT-X-PROGRAM-DATE-TIME:\(ProgramDateTime.format(date))")
            let segment = vod.segments[index]
            lines.append(segment.extinf)
            lines.append("seg-\(msn).\(segment.fileExtension)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
