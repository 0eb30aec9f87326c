import JSON

/// A parsed JSON value put into an `Encodable` answer as it is (the link spec a session runs).
struct EncodedJSONValue: Encodable {
    let value: JSONValue

    init(_ value: JSONValue) { self.value = value }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        switch value {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .number(let number, let text):
            var container = encoder.singleValueContainer()
            if JSONValue.isIntegerText(text), let integer = Int64(text) { try container.encode(integer) } else { try container.encode(number) }
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .array(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(EncodedJSONValue(item)) }
        case .object(let members):
            var container = encoder.container(keyedBy: Key.self)
            for member in members { try container.encode(EncodedJSONValue(member.value), forKey: Key(stringValue: member.key)) }
        }
    }
}
