/// A JSON document that keeps what Foundation's `JSONSerialization` loses: object members in the
/// order they were written, duplicate keys, and numbers as they are spelt (`3` and `3.0` stay
/// apart, a 64-bit seed keeps all its digits). Parsed by `parse`, written by `serialized`.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// `text` is the number as it is written, so `3` and `3.0` stay distinguishable.
    case number(Double, text: String)
    case string(String)
    case array([JSONValue])
    /// Members in order, duplicates included.
    case object([JSONMember])

    /// A short name for the value's type, for messages ("expected an integer, got a string").
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number(_, let text): Self.isIntegerText(text) ? "an integer" : "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }

    /// Whether a number's spelling is an integer (no fraction, no exponent).
    public static func isIntegerText(_ text: String) -> Bool {
        !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
    }

    /// The value of the first member named `key`; nil when there is none or this is not an object.
    public func member(_ key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }
}

public struct JSONMember: Sendable, Equatable {
    public var key: String
    public var value: JSONValue

    public init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }
}
