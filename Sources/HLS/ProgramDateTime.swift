import Foundation

/// `EXT-X-PROGRAM-DATE-TIME` values as written: ISO 8601, UTC, milliseconds, without a formatter
/// object (the playlist writer and the demo origin's live window both use it).
public enum ProgramDateTime {
    /// `2010-02-19T14:54:23.031Z`.
    public static func format(_ date: Date) -> String {
        // Dates far outside any real stream (extrapolated from absurd durations) are clamped.
        let clamped = min(max(date.timeIntervalSince1970, -62_135_596_800), 253_402_300_799)  // years 1...9999
        let totalMilliseconds = ValueParsing.int(exactly: (clamped * 1000).rounded()) ?? 0
        var days = totalMilliseconds / 86_400_000
        var milliseconds = totalMilliseconds % 86_400_000
        if milliseconds < 0 { milliseconds += 86_400_000; days -= 1 }
        let (year, month, day) = civilFromDays(days)
        let hour = milliseconds / 3_600_000
        let minute = milliseconds / 60_000 % 60
        let second = milliseconds / 1000 % 60
        let millis = milliseconds % 1000
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(millis, 3))Z"
    }

    /// Inverse of `ValueParsing.daysFromCivil` (H. Hinnant's algorithm).
    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
