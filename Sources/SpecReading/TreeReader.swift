import JSON

/// Walks a parsed JSON document, collecting every problem with its file and JSON path; each
/// reader returns nil for a value it rejected, so that one pass reports them all. The rule files'
/// decoder and the link spec reader extend it with their own shapes.
public struct TreeReader {
    /// The document's file, named in every problem; nil for an API body.
    public let file: String?
    /// The bytes of a file the document names (a link trace), or nil when it cannot be read: the
    /// reader does no I/O.
    public let loadFile: (String) -> [UInt8]?
    public private(set) var problems: [SpecProblem] = []

    public init(file: String?, loadFile: @escaping (String) -> [UInt8]? = { _ in nil }) {
        self.file = file
        self.loadFile = loadFile
    }

    public mutating func report(_ path: String, _ message: String) {
        problems.append(SpecProblem(file: file, path: path, message: message))
    }

    public static func child(_ path: String, _ key: String) -> String { JSONPath.child(path, key) }

    /// `"a", "b"`: a list of choices as a message shows them.
    public static func quoted(_ words: [String]) -> String { words.map { "\"\($0)\"" }.joined(separator: ", ") }

    // MARK: - shapes

    /// An object's members by key; reports unknown keys (with the nearest valid one) and duplicates.
    /// `elsewhere` names other sections to point a misplaced key to, e.g. ("action", actionKeys).
    public mutating func object(_ value: JSONValue, _ path: String, allowed: [String],
                                elsewhere: [(section: String, keys: [String])] = []) -> [String: (JSONValue, String)]? {
        guard case .object(let members) = value else {
            report(path, "expected an object, got \(value.typeName)")
            return nil
        }
        var result: [String: (JSONValue, String)] = [:]
        for member in members {
            let memberPath = Self.child(path, member.key)
            if result[member.key] != nil {
                report(memberPath, "duplicate key \"\(member.key)\"")
                continue
            }
            guard allowed.contains(member.key) else {
                if let other = elsewhere.first(where: { $0.keys.contains(member.key) }) {
                    report(memberPath, "unknown key \"\(member.key)\" (\"\(member.key)\" belongs in \"\(other.section)\")")
                } else if let suggestion = Suggestions.nearest(to: member.key, in: allowed) {
                    report(memberPath, "unknown key \"\(member.key)\" (did you mean \"\(suggestion)\"?)")
                } else {
                    report(memberPath, "unknown key \"\(member.key)\" (expected one of \(allowed.joined(separator: ", ")))")
                }
                continue
            }
            result[member.key] = (member.value, memberPath)
        }
        return result
    }

    /// A member that must be there; `what` says what it holds, for the message.
    public mutating func required(_ members: [String: (JSONValue, String)], _ key: String, _ path: String,
                                  _ what: String? = nil) -> (JSONValue, String)? {
        guard let member = members[key] else {
            report(path, "missing required key \"\(key)\"" + (what.map { " (\($0))" } ?? ""))
            return nil
        }
        return member
    }

    // MARK: - values

    public mutating func string(_ value: JSONValue, _ path: String, nonEmpty: Bool = true) -> String? {
        guard case .string(let text) = value else {
            report(path, "expected a string, got \(value.typeName)")
            return nil
        }
        // Blank is spaces and tabs, as Foundation's `.whitespaces`: a line break is not blank.
        if nonEmpty, text.unicodeScalars.allSatisfy({ $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }) {
            report(path, "must not be empty")
            return nil
        }
        return text
    }

    public mutating func bool(_ value: JSONValue, _ path: String) -> Bool? {
        guard case .bool(let flag) = value else {
            report(path, "expected true or false, got \(value.typeName)")
            return nil
        }
        return flag
    }

    /// An integer within `range`; `name` is used in the range message.
    public mutating func integer(_ value: JSONValue, _ path: String, _ name: String, in range: ClosedRange<Int>) -> Int? {
        guard let text = integerText(value, path) else { return nil }
        guard let number = Int(text) else {
            report(path, "\(name) is out of range: \(text)")
            return nil
        }
        guard range.contains(number) else {
            if range.upperBound == .max {
                report(path, "\(name) must be at least \(range.lowerBound), got \(text)")
            } else {
                report(path, "\(name) must be between \(range.lowerBound) and \(range.upperBound), got \(text)")
            }
            return nil
        }
        return number
    }

    public mutating func seed(_ value: JSONValue, _ path: String) -> UInt64? {
        guard let text = integerText(value, path) else { return nil }
        guard let number = UInt64(text) else {
            report(path, "seed must be between 0 and \(UInt64.max), got \(text)")
            return nil
        }
        return number
    }

    /// A JSON number written as a whole number, as written (any size).
    private mutating func integerText(_ value: JSONValue, _ path: String) -> String? {
        guard case .number(_, let text) = value, JSONValue.isIntegerText(text) else {
            report(path, "expected an integer, got \(value.typeName)")
            return nil
        }
        return text
    }

    /// One of a fixed set of words.
    public mutating func keyword(_ value: JSONValue, _ path: String, _ name: String, in allowed: [String]) -> String? {
        guard let text = string(value, path, nonEmpty: false) else { return nil }
        guard allowed.contains(text) else {
            let hint = Suggestions.nearest(to: text, in: allowed).map { " (did you mean \"\($0)\"?)" } ?? ""
            report(path, "unknown \(name) \"\(text)\"\(hint); expected one of \(Self.quoted(allowed))")
            return nil
        }
        return text
    }

    /// A duration string ("500ms", "2s"); `ValueText.duration` says what a wrong one lacks.
    public mutating func duration(_ value: JSONValue, _ path: String) -> Duration? {
        guard let text = string(value, path) else { return nil }
        return reported(ValueText.duration(text), path)
    }

    /// A rate string ("800kbps", "64KB/s"), 0 included; the caller refuses 0 where it means nothing.
    public mutating func rate(_ value: JSONValue, _ path: String) -> ValueText.Rate? {
        guard let text = string(value, path) else { return nil }
        return reported(ValueText.rate(text), path)
    }

    /// The value, or nil with the error reported at `path`.
    public mutating func reported<T>(_ result: Result<T, TextError>, _ path: String) -> T? {
        switch result {
        case .success(let value): return value
        case .failure(let error):
            report(path, error.message)
            return nil
        }
    }
}
