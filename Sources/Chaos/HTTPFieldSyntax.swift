import HTTPTypes

/// What the proxy accepts in a header it writes to a client: RFC 9110's field syntax as
/// swift-http-types checks it, the one set of rules (rule files when they load, origin headers on
/// every response, request headers before curl sends them). A header that fails it would end a
/// response with an error from NIO instead of a clear message.
public enum HTTPFieldSyntax {
    /// A field name (RFC 9110 §5.6.2 token): one or more of ALPHA, DIGIT and !#$%&'*+-.^_`|~
    /// The same answer as swift-http-types' `HTTPField.Name(_:) != nil` (`HTTPFieldSyntaxTests`
    /// holds them together), asked of every origin header on every response: without building
    /// the lowercased name that the library's initialiser makes along the way.
    public static func isToken(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in !bytes.isEmpty && bytes.allSatisfy(isTokenByte) }
    }

    /// The same for a name given as bytes (an origin's header, as curl handed it over).
    public static func isToken(bytes: UnsafeRawBufferPointer) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(isTokenByte)
    }

    /// A switch, not a table: a static table's lazy initialiser is asked on every call.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// A field value (RFC 9110 §5.5): visible characters, spaces and tabs, neither at either end;
    /// no CR, LF, NUL or other control character.
    public static func isFieldValue(_ value: String) -> Bool {
        HTTPField.isValidValue(value)
    }

    /// The same for a value given as bytes.
    public static func isFieldValue(bytes: UnsafeRawBufferPointer) -> Bool {
        HTTPField.isValidValue(bytes)
    }

    /// The characters a token may hold besides letters and digits, for error messages.
    public static let tokenSymbols = "!#$%&'*+-.^_`|~"

    /// What a field value may hold, for error messages.
    public static let valueRule = "visible characters, spaces and tabs (no line break, NUL or other control character, no space or tab at either end)"
}
