import BundleFormat
import Records
/// A JSON value whose objects keep their keys in the order they were written, so a HAR comes out
/// in the spec's field order and byte for byte the same for the same records. Numbers are either
/// integers, durations in whole microseconds (written as milliseconds with up to three decimals,
/// so HAR timings add up exactly) or plain doubles (non-finite ones are written as `null`).
enum HARJSON {
    case null
    case bool(Bool)
    case int(Int)
    /// A duration in microseconds, written in milliseconds: 1_234_500 → `1234.5`, -1_000 → `-1`.
    case milliseconds(Int64)
    case double(Double)
    case string(String)
    case array([HARJSON])
    case object([(String, HARJSON)])

    static func optional(_ value: String?) -> HARJSON { value.map(HARJSON.string) ?? .null }
    static func optional(_ value: Int?) -> HARJSON { value.map(HARJSON.int) ?? .null }
    static func optional(_ value: Double?) -> HARJSON { value.map(HARJSON.double) ?? .null }
    static func strings(_ values: [String]) -> HARJSON { .array(values.map(HARJSON.string)) }

    /// The value as UTF-8 JSON text; `indent` spaces per level and one member per line when
    /// pretty, no whitespace at all otherwise.
    func serialized(pretty: Bool, indent: Int = 2) -> String {
        var out = ""
        out.reserveCapacity(4096)
        write(into: &out, pretty: pretty, indent: indent, level: 0)
        if pretty { out.append("\n") }
        return out
    }

    private func write(into out: inout String, pretty: Bool, indent: Int, level: Int) {
        switch self {
        case .null: out.append("null")
        case .bool(let value): out.append(value ? "true" : "false")
        case .int(let value): out.append(String(value))
        case .milliseconds(let micros): out.append(Self.millisecondsText(micros))
        case .double(let value): out.append(value.isFinite ? Self.doubleText(value) : "null")
        case .string(let value): Self.writeString(value, into: &out)
        case .array(let items):
            if items.isEmpty { out.append("[]"); return }
            out.append("[")
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(",") }
                Self.newline(&out, pretty: pretty, indent: indent, level: level + 1)
                item.write(into: &out, pretty: pretty, indent: indent, level: level + 1)
            }
            Self.newline(&out, pretty: pretty, indent: indent, level: level)
            out.append("]")
        case .object(let members):
            if members.isEmpty { out.append("{}"); return }
            out.append("{")
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out.append(",") }
                Self.newline(&out, pretty: pretty, indent: indent, level: level + 1)
                Self.writeString(key, into: &out)
                out.append(pretty ? ": " : ":")
                value.write(into: &out, pretty: pretty, indent: indent, level: level + 1)
            }
            Self.newline(&out, pretty: pretty, indent: indent, level: level)
            out.append("}")
        }
    }

    private static func newline(_ out: inout String, pretty: Bool, indent: Int, level: Int) {
        guard pretty else { return }
        out.append("\n")
        out.append(String(repeating: " ", count: indent * level))
    }

    static func millisecondsText(_ micros: Int64) -> String {
        let sign = micros < 0 ? "-" : ""
        let magnitude = micros.magnitude
        let whole = magnitude / 1000
        let fraction = magnitude % 1000
        guard fraction != 0 else { return sign + String(whole) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return sign + String(whole) + "." + digits
    }

    /// Swift's shortest round-tripping form, which is valid JSON for finite values ("0.25",
    /// "1e-05", "12.0"); integral values lose the ".0".
    static func doubleText(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// RFC 8259 string escaping; also escapes U+2028 and U+2029 so the text is safe inside
    /// JavaScript too.
    static func writeString(_ value: String, into out: inout String) {
        out.append("\"")
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            case "\u{08}": out.append("\\b")
            case "\u{0C}": out.append("\\f")
            case "\u{2028}": out.append("\\u2028")
            case "\u{2029}": out.append("\\u2029")
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16, uppercase: false)
                    out.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out.append("\"")
    }
}
