/// What the proxy accepts in a header it writes to a client. Rule files are checked with it when
/// they load, origin headers on every response: NIO refuses to write a header that fails it, which
/// would end the response with an error instead of a clear message.
public enum HTTPFieldSyntax {
    /// A field name (RFC 9110 §5.6.2 token): one or more of ALPHA, DIGIT and !#$%&'*+-.^_`|~
    public static func isToken(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in !bytes.isEmpty && bytes.allSatisfy(isTokenByte) }
    }

    /// A field value the proxy can write on one line: no CR, LF or NUL.
    public static func isFieldValue(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { bytes in !bytes.contains { $0 == 0x0d || $0 == 0x0a || $0 == 0 } }
    }

    /// The characters a token may hold besides letters and digits, for error messages.
    public static let tokenSymbols = "!#$%&'*+-.^_`|~"

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
