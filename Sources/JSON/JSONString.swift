/// A string as a JSON string literal (RFC 8259): quotes, backslashes and control characters
/// escaped (the short forms where JSON has one), and U+2028/U+2029 too, so the text is also safe
/// inside JavaScript. Everything else, `/` and non-ASCII included, is written as it is.
public enum JSONString {
    public static func quoted(_ text: String) -> String {
        var out = ""
        write(text, into: &out)
        return out
    }

    /// Appends `text` quoted to `out`.
    public static func write(_ text: String, into out: inout String) {
        out.append("\"")
        for scalar in text.unicodeScalars {
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
