/// How `serialized` lays the text out.
public enum JSONLayout: Sendable, Equatable {
    /// No whitespace at all: `{"a":[1,2]}`.
    case compact
    /// One line, a space after each `,` and `:`: `{"a": [1, 2]}` (a value inside a hand-laid file).
    case oneLine
    /// One member or element per line, `indent` spaces per level (no final newline).
    case pretty(indent: Int)
}

extension JSONValue {
    /// The value as JSON text: members in their order, numbers as they are spelt, strings as
    /// `JSONString` quotes them. The same value always gives the same bytes.
    public func serialized(_ layout: JSONLayout = .compact) -> String {
        var out = ""
        out.reserveCapacity(4096)
        write(into: &out, layout: layout, level: 0)
        return out
    }

    private func write(into out: inout String, layout: JSONLayout, level: Int) {
        switch self {
        case .null: out.append("null")
        case .bool(let value): out.append(value ? "true" : "false")
        case .number(_, let text): out.append(text)
        case .string(let value): JSONString.write(value, into: &out)
        case .array(let items):
            if items.isEmpty { out.append("[]"); return }
            out.append("[")
            for (index, item) in items.enumerated() {
                Self.separate(&out, first: index == 0, layout: layout, level: level + 1)
                item.write(into: &out, layout: layout, level: level + 1)
            }
            Self.close(&out, layout: layout, level: level)
            out.append("]")
        case .object(let members):
            if members.isEmpty { out.append("{}"); return }
            out.append("{")
            for (index, member) in members.enumerated() {
                Self.separate(&out, first: index == 0, layout: layout, level: level + 1)
                JSONString.write(member.key, into: &out)
                out.append(layout == .compact ? ":" : ": ")
                member.value.write(into: &out, layout: layout, level: level + 1)
            }
            Self.close(&out, layout: layout, level: level)
            out.append("}")
        }
    }

    /// What goes before an element: a comma after the first, then a line break or a space.
    private static func separate(_ out: inout String, first: Bool, layout: JSONLayout, level: Int) {
        if !first { out.append(",") }
        switch layout {
        case .compact: break
        case .oneLine: if !first { out.append(" ") }
        case .pretty(let indent): newline(&out, indent: indent, level: level)
        }
    }

    private static func close(_ out: inout String, layout: JSONLayout, level: Int) {
        if case .pretty(let indent) = layout { newline(&out, indent: indent, level: level) }
    }

    private static func newline(_ out: inout String, indent: Int, level: Int) {
        out.append("\n")
        out.append(String(repeating: " ", count: indent * level))
    }
}
