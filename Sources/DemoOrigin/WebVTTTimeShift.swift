import Foundation

/// Moves a WebVTT segment's `X-TIMESTAMP-MAP` MPEG-TS time forward, so its cues follow
/// media whose timestamps were moved by the same amount (live fMP4 loops).
enum WebVTTTimeShift {
    private static let prefix = "X-TIMESTAMP-MAP=MPEGTS:"
    /// MPEG-TS timestamps are 33-bit counters of a 90 kHz clock.
    private static let rollover: Int64 = 1 << 33

    static func shifted(_ data: Data, bySeconds seconds: Int) -> Data {
        guard let text = String(data: data, encoding: .utf8) else { return data }
        var lines = text.components(separatedBy: "\n")
        guard let index = lines.firstIndex(where: { $0.hasPrefix(prefix) }) else { return data }
        let rest = lines[index].dropFirst(prefix.count)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard let value = Int64(digits) else { return data }
        let shift = (Int64(seconds) % rollover) * 90_000 % rollover
        lines[index] = prefix + String((value + shift) % rollover) + rest.dropFirst(digits.count)
        return Data(lines.joined(separator: "\n").utf8)
    }
}
