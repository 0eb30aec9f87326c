import Foundation

/// Moves the timestamps of a clear MPEG-TS segment forward, for the live loop, and keeps
/// the continuity counters running across the loop point.
///
/// Why: ffmpeg's HLS demuxer ignores EXT-X-DISCONTINUITY and interleaves separate audio
/// and video renditions by timestamp, so a loop restarting at zero starves one rendition
/// and stalls playback. Patched in place (sizes unchanged): PCR, PES PTS/DTS (33-bit,
/// wrapping like real streams) and the 4-bit continuity counter of every PID.
struct MPEGTSTimeShift: Sendable {
    static let packetSize = 188
    private static let timestampModulus: UInt64 = 1 << 33

    /// Per PID: how far its continuity counter advances over one whole loop, modulo 16.
    private let counterAdvancePerLoop: [UInt16: UInt8]

    /// `segments`: every segment of one rendition, in playlist order. Nil if they are not
    /// plain 188-byte-packet MPEG-TS (e.g. encrypted).
    init?(segments: [Data]) {
        var advance: [UInt16: Int] = [:]
        for segment in segments {
            guard segment.count % Self.packetSize == 0, !segment.isEmpty else { return nil }
            var offset = segment.startIndex
            while offset < segment.endIndex {
                guard segment[offset] == 0x47 else { return nil }
                let pid = UInt16(segment[offset + 1] & 0x1F) << 8 | UInt16(segment[offset + 2])
                if pid != 0x1FFF, segment[offset + 3] & 0x10 != 0 {
                    advance[pid, default: 0] += 1
                }
                offset += Self.packetSize
            }
        }
        counterAdvancePerLoop = advance.mapValues { UInt8($0 % 16) }
    }

    /// `segment` as it plays in loop `loop`: timestamps later by `loop × loopSeconds`,
    /// continuity counters advanced by `loop` whole loops. Nil if the packets are malformed.
    func shifted(_ segment: Data, loop: Int, loopSeconds: Int) -> Data? {
        var bytes = [UInt8](segment)
        guard bytes.count % Self.packetSize == 0 else { return nil }
        guard loop >= 0, loopSeconds >= 0, loopSeconds < 1 << 20 else { return nil }
        let ticks = UInt64(loop % (1 << 33)) * UInt64(loopSeconds) * 90_000 % Self.timestampModulus
        var packet = 0
        while packet < bytes.count {
            guard bytes[packet] == 0x47 else { return nil }
            let pid = UInt16(bytes[packet + 1] & 0x1F) << 8 | UInt16(bytes[packet + 2])
            let payloadStart = bytes[packet + 1] & 0x40 != 0
            let adaptationControl = (bytes[packet + 3] >> 4) & 0x03
            if pid != 0x1FFF, adaptationControl & 0x01 != 0, let step = counterAdvancePerLoop[pid] {
                let counterShift = UInt8((loop % 16) * Int(step) % 16)
                bytes[packet + 3] = (bytes[packet + 3] & 0xF0) | (((bytes[packet + 3] & 0x0F) + counterShift) & 0x0F)
            }
            var payload = packet + 4
            if adaptationControl & 0x02 != 0 {
                let length = Int(bytes[packet + 4])
                guard payload + 1 + length <= packet + Self.packetSize else { return nil }
                if length >= 7, bytes[packet + 5] & 0x10 != 0 {
                    shiftPCR(in: &bytes, at: packet + 6, by: ticks)
                }
                payload += 1 + length
            }
            if payloadStart, adaptationControl & 0x01 != 0 {
                shiftPESTimestamps(in: &bytes, at: payload, packetEnd: packet + Self.packetSize, by: ticks)
            }
            packet += Self.packetSize
        }
        return Data(bytes)
    }

    private func shiftPCR(in bytes: inout [UInt8], at offset: Int, by ticks: UInt64) {
        var base = UInt64(bytes[offset]) << 25 | UInt64(bytes[offset + 1]) << 17 | UInt64(bytes[offset + 2]) << 9
            | UInt64(bytes[offset + 3]) << 1 | UInt64(bytes[offset + 4]) >> 7
        base = (base + ticks) % Self.timestampModulus
        bytes[offset] = UInt8(truncatingIfNeeded: base >> 25)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: base >> 17)
        bytes[offset + 2] = UInt8(truncatingIfNeeded: base >> 9)
        bytes[offset + 3] = UInt8(truncatingIfNeeded: base >> 1)
        bytes[offset + 4] = UInt8(truncatingIfNeeded: (base & 1) << 7) | (bytes[offset + 4] & 0x7F)
    }

    /// PES header: 00 00 01, stream id, length(2), flags(2), header length, then PTS [DTS].
    private func shiftPESTimestamps(in bytes: inout [UInt8], at start: Int, packetEnd: Int, by ticks: UInt64) {
        guard start + 9 <= packetEnd, bytes[start] == 0, bytes[start + 1] == 0, bytes[start + 2] == 1 else { return }
        let streamID = bytes[start + 3]
        // Streams without the optional PES header (padding, private_2, PSM, ECM/EMM, directory, DSM-CC, H.222.1 E).
        guard ![0xBC, 0xBE, 0xBF, 0xF0, 0xF1, 0xFF, 0xF2, 0xF8].contains(streamID) else { return }
        let flags = bytes[start + 7] >> 6
        if flags & 0x02 != 0, start + 14 <= packetEnd {
            shiftTimestamp(in: &bytes, at: start + 9, by: ticks)
        }
        if flags == 0x03, start + 19 <= packetEnd {
            shiftTimestamp(in: &bytes, at: start + 14, by: ticks)
        }
    }

    private func shiftTimestamp(in bytes: inout [UInt8], at offset: Int, by ticks: UInt64) {
        var value = UInt64(bytes[offset] >> 1 & 0x07) << 30 | UInt64(bytes[offset + 1]) << 22
            | UInt64(bytes[offset + 2] >> 1) << 15 | UInt64(bytes[offset + 3]) << 7 | UInt64(bytes[offset + 4] >> 1)
        value = (value + ticks) % Self.timestampModulus
        bytes[offset] = (bytes[offset] & 0xF0) | UInt8(truncatingIfNeeded: value >> 29) & 0x0E | 0x01
        bytes[offset + 1] = UInt8(truncatingIfNeeded: value >> 22)
        bytes[offset + 2] = UInt8(truncatingIfNeeded: value >> 14) & 0xFE | 0x01
        bytes[offset + 3] = UInt8(truncatingIfNeeded: value >> 7)
        bytes[offset + 4] = UInt8(truncatingIfNeeded: value << 1) & 0xFE | 0x01
    }
}
