/// The values CMCD is written in: the items, parameters and inner lists of an RFC 8941 structured-field
/// dictionary, as read off the wire (before the key registry gives them a meaning).
public enum CMCDBareItem: Sendable, Hashable {
    case integer(Int)
    case decimal(Double)
    /// The text between the quotes, escapes resolved.
    case string(String)
    case token(String)
    case boolean(Bool)
    /// A byte sequence (`:…:`), its base64 text as written. CMCD defines no such key; vendor keys may.
    case bytes(String)

    public var type: CMCDValueType {
        switch self {
        case .integer: .integer
        case .decimal: .decimal
        case .string: .string
        case .token: .token
        case .boolean: .boolean
        case .bytes: .bytes
        }
    }
}

/// The kinds of value, named as the specification names them.
public enum CMCDValueType: String, Sendable, Hashable {
    case integer, decimal, string, token, boolean
    case bytes = "byte sequence"
    case innerList = "inner list"
}

/// `;key` or `;key=value` after an item or an inner list (v2 names object types this way: `br=(3000;v 128;a)`).
public struct CMCDParameter: Sendable, Hashable {
    public var key: String
    public var value: CMCDBareItem

    public init(key: String, value: CMCDBareItem) {
        self.key = key
        self.value = value
    }
}

/// A bare item and its parameters.
public struct CMCDItem: Sendable, Hashable {
    public var value: CMCDBareItem
    public var parameters: [CMCDParameter]

    public init(_ value: CMCDBareItem, parameters: [CMCDParameter] = []) {
        self.value = value
        self.parameters = parameters
    }
}

/// What follows a key: one item (a key alone is the boolean true) or an inner list `(…)`.
public enum CMCDValue: Sendable, Hashable {
    case item(CMCDItem)
    case innerList([CMCDItem], parameters: [CMCDParameter])

    public var type: CMCDValueType {
        switch self {
        case .item(let item): item.value.type
        case .innerList: .innerList
        }
    }
}

// MARK: - Writing values back (records keep CMCD compact, as text a person can read)

extension CMCDBareItem {
    /// The value as RFC 8941 writes it.
    public var wireText: String {
        switch self {
        case .integer(let value): String(value)
        case .decimal(let value): Self.decimalText(value)
        case .string(let text): "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
        case .token(let text): text
        case .boolean(let value): value ? "?1" : "?0"
        case .bytes(let base64): ":" + base64 + ":"
        }
    }

    /// At most three decimals, at least one (`1.0`, `0.75`): the serialisation RFC 8941 §4.1.5 asks for.
    static func decimalText(_ value: Double) -> String {
        guard value.isFinite else { return "0.0" }
        let thousandths = (value * 1000).rounded()
        guard abs(thousandths) < 1e15 else { return "0.0" }
        let whole = Int(thousandths) / 1000, fraction = abs(Int(thousandths) % 1000)
        var digits = String(fraction)
        while digits.count < 3 { digits = "0" + digits }
        while digits.count > 1 && digits.hasSuffix("0") { digits.removeLast() }
        let sign = thousandths < 0 && whole == 0 ? "-" : ""
        return sign + String(whole) + "." + digits
    }
}

extension CMCDParameter {
    public var wireText: String {
        if case .boolean(true) = value { return ";" + key }
        return ";" + key + "=" + value.wireText
    }
}

extension CMCDItem {
    public var wireText: String { value.wireText + parameters.map(\.wireText).joined() }
}

extension CMCDValue {
    /// The value after `key=`.
    public var wireText: String {
        switch self {
        case .item(let item): item.wireText
        case .innerList(let items, let parameters): "(" + items.map(\.wireText).joined(separator: " ") + ")" + parameters.map(\.wireText).joined()
        }
    }

    /// `key=value`, or the key alone when the value is true (with its parameters: `bs;v`).
    public func member(_ key: String) -> String {
        if case .item(let item) = self, case .boolean(true) = item.value { return key + item.parameters.map(\.wireText).joined() }
        return key + "=" + wireText
    }
}
