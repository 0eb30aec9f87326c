import NIOCore

/// Where the segments of one media playlist sit, by MSN, as a session learnt them from the versions
/// it was served. MSNs are stored as one contiguous run (a media playlist's MSNs are contiguous, and
/// a live window's next version overlaps its last), so that learning a reload costs what is new in it:
/// nothing for a version already learnt, a segment or two for a live window that slid.
struct MediaTimeline {
    struct Position: Equatable {
        /// Position from the first segment; nil on a sliding live window.
        var index: Int?
        /// Start on the media timeline, seconds from the first segment this session saw.
        var mediaTime: Double
    }

    typealias Segment = (msn: Int, index: Int, startTime: Double)

    /// MSN of `positions.first`; every later slot is the next MSN. A slot is nil for an MSN between
    /// two versions that never listed it (a live window that jumped ahead).
    private var firstMSN = 0
    private var positions = CircularBuffer<Position?>()
    /// How many slots of `positions` are nil: while there are none, a reload need not look at the
    /// segments it shares with what is known.
    private var holes = 0
    /// First MSN and count of the complete (VOD/EVENT) playlist last learnt: the same again teaches
    /// nothing new, and players reload VOD playlists often.
    private var complete: (first: Int, count: Int)?

    /// How many MSNs it keeps at most; and behind a live window, how many at least.
    static let memory = 4096
    static let behindLiveWindow = 64

    var count: Int { positions.count - holes }

    func position(of msn: Int) -> Position? {
        let slot = msn - firstMSN
        guard slot >= 0, slot < positions.count else { return nil }
        return positions[positions.index(positions.startIndex, offsetBy: slot)]
    }

    /// VOD and EVENT playlists count `index` from their first segment and are learnt whole when they
    /// change. A live window's media times continue from a segment already known, and only MSNs not
    /// yet known are written: a published segment does not change (RFC 8216, 6.2.1).
    mutating func learn(_ segments: [Segment], isComplete: Bool) {
        guard let first = segments.first, let last = segments.last else { return }
        if isComplete {
            if let known = complete, known.first == first.msn, known.count == segments.count { return }
            complete = (first.msn, segments.count)
            firstMSN = first.msn
            positions.removeAll(keepingCapacity: true)
            holes = 0
            for segment in segments { positions.append(Position(index: segment.index, mediaTime: segment.startTime)) }
            trim(keepingFrom: last.msn - Self.memory + 1)
            return
        }
        if complete != nil {  // a complete playlist became live again: start over
            complete = nil
            positions.removeAll(keepingCapacity: true)
            holes = 0
        }
        let offset = anchorOffset(segments)
        if positions.isEmpty || first.msn > firstMSN + positions.count + Self.memory || last.msn < firstMSN - Self.memory {
            firstMSN = first.msn
            positions.removeAll(keepingCapacity: true)
            holes = 0
        }
        // Known MSNs never listed before: the holes this version fills.
        if holes > 0 {
            var msn = max(first.msn, firstMSN)
            var slot = positions.index(positions.startIndex, offsetBy: msn - firstMSN, limitedBy: positions.endIndex) ?? positions.endIndex
            while msn <= last.msn, slot != positions.endIndex {
                if positions[slot] == nil {
                    positions[slot] = Position(index: nil, mediaTime: offset + segments[msn - first.msn].startTime)
                    holes -= 1
                }
                msn += 1
                slot = positions.index(after: slot)
            }
        }
        // MSNs before the known run (an older version served again, say), gaps as nil.
        while firstMSN > first.msn {
            firstMSN -= 1
            let slot = firstMSN - first.msn
            if slot < segments.count {
                positions.prepend(Position(index: nil, mediaTime: offset + segments[slot].startTime))
            } else {
                positions.prepend(nil)
                holes += 1
            }
        }
        // MSNs after it: the new segments of a slid window.
        var msn = firstMSN + positions.count
        while msn < first.msn {
            positions.append(nil)
            holes += 1
            msn += 1
        }
        while msn <= last.msn {
            positions.append(Position(index: nil, mediaTime: offset + segments[msn - first.msn].startTime))
            msn += 1
        }
        // A live window slides for ever: keep what a player may still ask for (the window and as much
        // again behind it), not every MSN the session ever saw.
        trim(keepingFrom: max(first.msn - max(Self.behindLiveWindow, segments.count), last.msn - Self.memory + 1))
    }

    /// What to add to this version's start times so that its first segment already known keeps the
    /// media time it has; 0 when it shares no segment with what is known.
    private func anchorOffset(_ segments: [Segment]) -> Double {
        guard let first = segments.first?.msn else { return 0 }
        var msn = max(first, firstMSN)
        let end = min(first + segments.count, firstMSN + positions.count)
        while msn < end {
            if let known = position(of: msn) { return known.mediaTime - segments[msn - first].startTime }
            msn += 1
        }
        return 0
    }

    private mutating func trim(keepingFrom oldestKept: Int) {
        while firstMSN < oldestKept, let oldest = positions.popFirst() {
            if oldest == nil { holes -= 1 }
            firstMSN += 1
        }
    }
}
