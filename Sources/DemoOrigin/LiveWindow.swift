import Foundation

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

/// ISO 8601 UTC with milliseconds (`2026-11-23T04:05:06.789Z`), without a formatter object.
enum ProgramDateTime {
    static func format(_ date: Date) -> String {
        let milliseconds1970 = (date.timeIntervalSince1970 * 1000).rounded(.down)
        // Years 0...9999 keep the fixed-width format (and Int64 conversion) valid.
        let clamped = milliseconds1970.isNaN ? 0 : min(max(milliseconds1970, -62_167_219_200_000), 253_402_300_799_999)
        let totalMilliseconds = Int64(clamped)
        let milliseconds = Int(((totalMilliseconds % 1000) + 1000) % 1000)
        let totalSeconds = (totalMilliseconds - Int64(milliseconds)) / 1000
        var days = totalSeconds / 86_400
        var secondsOfDay = totalSeconds % 86_400
        if secondsOfDay < 0 {
            secondsOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        return String(format: "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03dZ",
                      year, month, day, secondsOfDay / 3600, (secondsOfDay % 3600) / 60, secondsOfDay % 60, milliseconds)
    }

    /// Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's `civil_from_days`).
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
