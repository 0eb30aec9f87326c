/// One `NAME=VALUE` pair of a tag's attribute list.
struct Attribute: Sendable {
    var name: String
    /// Unquoted value with variables substituted.
    var value: String
    var quoted: Bool
    /// Position of the name in the storage buffer.
    var nameStart: Int
    /// Position of the value in the storage buffer, without the quotes.
    var valueStart: Int
    var valueEnd: Int
}

/// A parsed attribute list. Lookups are linear: tags carry only a handful of attributes.
struct AttributeList: Sendable {
    var items: [Attribute] = []

    subscript(name: String) -> String? {
        for item in items where item.name == name { return item.value }
        return nil
    }

    func attribute(_ name: String) -> Attribute? {
        for item in items where item.name == name { return item }
        return nil
    }

    var dictionary: [String: String] {
        var result: [String: String] = [:]
        for item in items { result[item.name] = item.value }
        return result
    }
}

enum AttributeParser {
    /// Parses `bytes[start..<end]` as an attribute list. Quoted values may contain commas.
    /// Problems are reported through `problem` and parsing continues with the next pair.
    static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int,
        substitute: (Int, Int) -> String,
        problem: (String) -> Void
    ) -> AttributeList {
        var list = AttributeList()
        var pos = start
        while pos < end {
            while pos < end && (bytes[pos] == 0x20 || bytes[pos] == 0x09) { pos += 1 }
            if pos >= end { break }
            let nameStart = pos
            while pos < end && bytes[pos] != 0x3D && bytes[pos] != 0x2C { pos += 1 }
            var nameEnd = pos
            while nameEnd > nameStart && (bytes[nameEnd - 1] == 0x20 || bytes[nameEnd - 1] == 0x09) { nameEnd -= 1 }
            let name = String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)
            if pos >= end || bytes[pos] == 0x2C {
                if !name.isEmpty { problem("attribute \(name) has no value") }
                pos += 1
                continue
            }
            if name.isEmpty { problem("attribute value without a name") }
            pos += 1  // '='
            if pos < end && bytes[pos] == 0x22 {
                let valueStart = pos + 1
                var close = valueStart
                while close < end && bytes[close] != 0x22 { close += 1 }
                if close >= end {
                    problem("attribute \(name): quoted string is not terminated")
                    list.items.append(Attribute(name: name, value: substitute(valueStart, end), quoted: true, nameStart: nameStart,
                                                valueStart: valueStart, valueEnd: end))
                    break
                }
                list.items.append(Attribute(name: name, value: substitute(valueStart, close), quoted: true, nameStart: nameStart,
                                            valueStart: valueStart, valueEnd: close))
                pos = close + 1
                while pos < end && (bytes[pos] == 0x20 || bytes[pos] == 0x09) { pos += 1 }
                if pos < end && bytes[pos] != 0x2C {
                    problem("attribute \(name): unexpected characters after quoted string")
                    while pos < end && bytes[pos] != 0x2C { pos += 1 }
                }
                pos += 1
            } else {
                let valueStart = pos
                while pos < end && bytes[pos] != 0x2C { pos += 1 }
                var valueEnd = pos
                while valueEnd > valueStart && (bytes[valueEnd - 1] == 0x20 || bytes[valueEnd - 1] == 0x09) { valueEnd -= 1 }
                list.items.append(Attribute(name: name, value: substitute(valueStart, valueEnd), quoted: false, nameStart: nameStart,
                                            valueStart: valueStart, valueEnd: valueEnd))
                pos += 1
            }
        }
        return list
    }
}
