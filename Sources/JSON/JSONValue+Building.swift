/// Building values to write: numbers get their spelling here, once.
extension JSONValue {
    public static func int(_ value: Int) -> JSONValue { .number(Double(value), text: String(value)) }

    /// Swift's shortest round-tripping form, valid JSON for finite values ("0.25", "1e-05");
    /// integral values lose the ".0" ("12"); NaN and infinities are written `null`.
    public static func double(_ value: Double) -> JSONValue {
        guard value.isFinite else { return .null }
        if abs(value) < 1e15, Double(Int64(value)) == value { return .number(value, text: String(Int64(value))) }
        return .number(value, text: String(value))
    }

    /// A duration in microseconds, written in milliseconds with at most three decimals, so
    /// durations written this way add up exactly: 1_234_500 → `1234.5`, -1_000 → `-1`.
    public static func milliseconds(_ micros: Int64) -> JSONValue {
        let sign = micros < 0 ? "-" : ""
        let magnitude = micros.magnitude
        let whole = magnitude / 1000
        let fraction = magnitude % 1000
        let text: String
        if fraction == 0 {
            text = sign + String(whole)
        } else {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 3 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text = sign + String(whole) + "." + digits
        }
        return .number(Double(micros) / 1000, text: text)
    }

    public static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    public static func optional(_ value: Int?) -> JSONValue { value.map(JSONValue.int) ?? .null }
    public static func optional(_ value: Double?) -> JSONValue { value.map(JSONValue.double) ?? .null }
    public static func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }

    /// An object of `(key, value)` pairs, in their order.
    public static func object(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(members.map { JSONMember(key: $0.0, value: $0.1) })
    }

    /// An object of the pairs whose value is not nil, in their order (absent fields left out).
    public static func object(omittingNil members: [(String, JSONValue?)]) -> JSONValue {
        .object(members.compactMap { key, value in value.map { JSONMember(key: key, value: $0) } })
    }

    /// Sets the member at a path of object keys, replacing the first member of that key or adding
    /// one at the end; objects on the way that are missing are added. A non-object on the way is
    /// replaced by an object.
    public mutating func set(_ value: JSONValue, at keys: [String]) {
        guard let key = keys.first else { self = value; return }
        var members: [JSONMember]
        if case .object(let existing) = self { members = existing } else { members = [] }
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value.set(value, at: Array(keys.dropFirst()))
        } else {
            var child = JSONValue.object([JSONMember]())
            child.set(value, at: Array(keys.dropFirst()))
            members.append(JSONMember(key: key, value: child))
        }
        self = .object(members)
    }
}
