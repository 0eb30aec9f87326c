import BundleFormat
import Foundation
import HLS

/// How a live media playlist continues when `--loop` starts the recording over: pass `k` serves
/// the recorded versions with every media sequence number moved forward by `k × msnStep` (the
/// first segment of the pass follows the last one of the pass before), the discontinuity sequence
/// moved by `k × discontinuityStep`, an `EXT-X-DISCONTINUITY` before the pass's first segment
/// (the content jumps back), and program date-times moved by `k × dateStep`. A player sees a live
/// stream that goes on, with one discontinuity per pass — never a media sequence going back.
struct ReplayLoopPlan: Equatable, Sendable {
    /// The MSN of the first segment of a pass (the first segment of the version current at `--from`).
    var firstMSN: Int
    var msnStep: Int
    var discontinuityStep: Int
    /// Seconds the program date-times advance per pass (nil: the playlist has none).
    var dateStep: Double?

    /// From the version current at `--from` and the last version of the recording.
    init?(first: Playlist, last: Playlist) {
        guard first.kind == .media, last.kind == .media, let firstSegment = first.segments.first else { return nil }
        let lastEnd = last.mediaSequence + last.segmentCount  // the MSN after the last recorded segment
        firstMSN = first.mediaSequence
        msnStep = max(lastEnd - firstMSN, 1)
        let lastSequence = last.segments.last?.discontinuitySequence ?? last.discontinuitySequence
        discontinuityStep = max(lastSequence - first.discontinuitySequence + 1, 1)
        if let start = firstSegment.programDateTime, let final = last.segments.last, let finalDate = final.programDateTime {
            let step = finalDate.timeIntervalSince(start) + final.duration
            dateStep = step > 0 ? step : nil
        } else {
            dateStep = nil
        }
    }

    /// The version as pass `loop` (≥ 1) serves it.
    func apply(to playlist: inout Playlist, loop: Int) {
        guard loop > 0, playlist.kind == .media else { return }
        let segments = playlist.segments
        let shiftedMSN = playlist.mediaSequence + loop * msnStep
        var sequence = playlist.discontinuitySequence + loop * discontinuityStep
        if let first = segments.first, first.msn == firstMSN, !first.discontinuity {
            // The pass starts here: the jump back in content is a discontinuity; the header counts
            // the one before it, so the tagged segment gets the next number.
            playlist.addTag("#EXT-X-DISCONTINUITY", toSegmentsWhere: { $0.index == 0 })
            sequence -= 1
        }
        if let dateStep {
            let shift = Double(loop) * dateStep
            let updated = playlist.segments
            var replacements: [(Int, String)] = []
            for index in 0..<playlist.lineCount {
                guard let line = playlist.line(index), line.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") else { continue }
                // The date of a PROGRAM-DATE-TIME line is the one of the segment it precedes.
                guard let segment = updated.first(where: { $0.line - 1 > index }), let date = segment.programDateTime else { continue }
                replacements.append((index, "#EXT-X-PROGRAM-DATE-TIME:" + ProgramDateTime.format(date.addingTimeInterval(shift))))
            }
            for (index, text) in replacements { playlist.replaceLine(index, with: text) }
        }
        playlist.setHeaderTag("#EXT-X-MEDIA-SEQUENCE", value: String(shiftedMSN))
        playlist.setHeaderTag("#EXT-X-DISCONTINUITY-SEQUENCE", value: String(max(sequence, 0)))
    }
}
