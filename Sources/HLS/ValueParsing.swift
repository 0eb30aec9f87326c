import Foundation

enum ValueParsing {
    /// Sums of values read from a playlist: input can hold numbers big enough to overflow.
    static func add(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? Int.max : Int.min) : sum
    }

    /// `Int(value)` that cannot trap: nil for values out of range or not finite.
    static func int(exactly value: Double) -> Int? {
        guard value.isFinite, value > -9.0e18, value < 9.0e18 else { return nil }
        return Int(value)
    }

    static let powersOfTen: [Double] = (0...22).map { pow(10.0, Double($0)) }

    /// Parses a decimal-floating-point like `10.010` from bytes without building a String.
    /// Falls back to `Double(String)` for anything unusual (exponents, long mantissas).
    static func decimal(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        var pos = start
        var negative = false
        if pos < end && bytes[pos] == 0x2D { negative = true; pos += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var seenDot = false
        while pos < end {
            let byte = bytes[pos]
            if byte >= 0x30 && byte <= 0x39 {
                if digits >= 18 { return fallback(bytes, start, end) }
                mantissa = mantissa * 10 + UInt64(byte - 0x30)
                digits += 1
                if seenDot { fractionDigits += 1 }
            } else if byte == 0x2E && !seenDot {
                seenDot = true
            } else {
                return fallback(bytes, start, end)
            }
            pos += 1
        }
        if digits == 0 { return nil }
        var value = Double(mantissa)
        if fractionDigits > 0 { value /= powersOfTen[fractionDigits] }
        return negative ? -value : value
    }

    private static func fallback(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        guard let value = Double(String(decoding: bytes[start..<end], as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// An `EXTINF` value, `bytes[start..<end]`: its duration when it is a decimal ≥ 0 (nil otherwise),
    /// where the duration's text ends and where its comma is (`end` without one).
    static func extinf(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (duration: Double?, durationEnd: Int, comma: Int) {
        var comma = start
        while comma < end && bytes[comma] != 0x2C { comma += 1 }
        var durationEnd = comma
        while durationEnd > start && (bytes[durationEnd - 1] == 0x20 || bytes[durationEnd - 1] == 0x09) { durationEnd -= 1 }
        let duration = decimal(bytes, start, durationEnd).flatMap { $0 >= 0 ? $0 : nil }
        return (duration, durationEnd, comma)
    }

    /// Parses a decimal-integer (no sign) from bytes; nil when empty, not digits or too large.
    static func integer(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int? {
        if start >= end || end - start > 18 { return nil }
        var value = 0
        for pos in start..<end {
            let byte = bytes[pos]
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    static func integer(_ text: String) -> Int? {
        var text = text
        return text.withUTF8 { integer($0, 0, $0.count) }
    }

    static func decimal(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { decimal($0, 0, $0.count) }
    }

    /// `<n>[@<o>]` as used by EXT-X-BYTERANGE and the BYTERANGE attribute of MAP / PART.
    static func byteRange(_ text: String) -> (length: Int, offset: Int?)? {
        var text = text
        return text.withUTF8 { byteRange($0) }
    }

    private static func byteRange(_ bytes: UnsafeBufferPointer<UInt8>) -> (length: Int, offset: Int?)? {
        var at = bytes.count
        for (index, byte) in bytes.enumerated() where byte == 0x40 { at = index; break }
        guard let length = integer(bytes, 0, at) else { return nil }
        if at == bytes.count { return (length, nil) }
        guard let offset = integer(bytes, at + 1, bytes.count) else { return nil }
        return (length, offset)
    }

    /// ISO 8601 / RFC 3339 date-time as used by EXT-X-PROGRAM-DATE-TIME,
    /// e.g. `2010-02-19T14:54:23.031+08:00` or `...Z`. Seconds and time zone may be omitted.
    static func dateTime(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { dateTime($0) }
    }

    private static func dateTime(_ b: UnsafeBufferPointer<UInt8>) -> Date? {
        var pos = 0
        func number(_ count: Int) -> Int? {
            guard pos + count <= b.count, let value = integer(b, pos, pos + count) else { return nil }
            pos += count
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard pos < b.count, b[pos] == byte else { return false }
            pos += 1
            return true
        }
        guard let year = number(4), expect(0x2D), let month = number(2), expect(0x2D), let day = number(2) else { return nil }
        guard pos < b.count, b[pos] == 0x54 || b[pos] == 0x74 || b[pos] == 0x20 else { return nil }
        pos += 1
        guard let hour = number(2), expect(0x3A), let minute = number(2) else { return nil }
        var seconds = 0.0
        if expect(0x3A) {
            guard let whole = number(2) else { return nil }
            seconds = Double(whole)
            if pos < b.count && (b[pos] == 0x2E || b[pos] == 0x2C) {
                pos += 1
                let fractionStart = pos
                while pos < b.count && b[pos] >= 0x30 && b[pos] <= 0x39 { pos += 1 }
                guard pos > fractionStart else { return nil }
                let digits = min(pos - fractionStart, 15)
                guard let fraction = integer(b, fractionStart, fractionStart + digits) else { return nil }
                seconds += Double(fraction) / powersOfTen[digits]
            }
        }
        var offsetSeconds = 0
        if pos < b.count {
            if b[pos] == 0x5A || b[pos] == 0x7A {
                pos += 1
            } else if b[pos] == 0x2B || b[pos] == 0x2D {
                let sign = b[pos] == 0x2D ? -1 : 1
                pos += 1
                guard let offsetHours = number(2) else { return nil }
                _ = expect(0x3A)
                let offsetMinutes = number(2) ?? 0
                offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
            } else {
                return nil
            }
        }
        guard pos == b.count, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, seconds < 61 else {
            return nil
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let epoch = Double(days * 86_400 + hour * 3600 + minute * 60 - offsetSeconds) + seconds
        return Date(timeIntervalSince1970: epoch)
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
