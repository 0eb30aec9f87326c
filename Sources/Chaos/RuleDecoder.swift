import Foundation
import JSON

/// Reads a rule file and reports every problem at once (file, JSON path, what is wrong).
public enum RuleDecoder {
    /// Decodes a scenario from JSON bytes; `file` is the name used in problems.
    /// `traceFile` returns the bytes of a link trace the file names (`"link": {"trace": {"file": …}}`),
    /// or nil when there is no such trace.
    public static func decode(_ bytes: some Collection<UInt8>, file: String,
                              traceFile: @escaping (String) -> [UInt8]? = { _ in nil }) throws(RuleFileError) -> Scenario {
        let value: JSONValue
        do {
            value = try JSONValue.parse(Array(bytes))
        } catch {
            throw RuleFileError(problems: [RuleProblem(file: file, path: "$", message: error.description)])
        }
        return try decode(value, file: file, traceFile: traceFile)
    }

    /// Decodes a scenario already parsed (the `scenario` of a control API body).
    public static func decode(_ value: JSONValue, file: String,
                              traceFile: @escaping (String) -> [UInt8]? = { _ in nil }) throws(RuleFileError) -> Scenario {
        var reader = TreeReader(file: file, traceFile: traceFile)
        let scenario = reader.scenario(value)
        if let scenario, reader.problems.isEmpty { return scenario }
        throw RuleFileError(problems: reader.problems)
    }

    /// Reads and decodes a file from disk; an unreadable file is one problem at `$`. A link trace
    /// it names is read relative to the file's folder, else from `builtInTraces`.
    public static func decodeFile(atPath path: String,
                                  builtInTraces: @escaping (String) -> [UInt8]? = { _ in nil }) throws(RuleFileError) -> Scenario {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot read the file" : "no such file"
            throw RuleFileError(problems: [RuleProblem(file: path, path: "$", message: reason)])
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        return try decode([UInt8](data), file: path) { name in
            FileManager.default.contents(atPath: folder.appendingPathComponent(name).path).map { [UInt8]($0) }
                ?? builtInTraces(name)
        }
    }

    /// Every problem in the file, empty when it is valid.
    public static func problems(in bytes: some Collection<UInt8>, file: String,
                                traceFile: @escaping (String) -> [UInt8]? = { _ in nil }) -> [RuleProblem] {
        do {
            _ = try decode(bytes, file: file, traceFile: traceFile)
            return []
        } catch {
            return error.problems
        }
    }
}

/// Walks the parsed tree, collecting problems; every reader returns nil for a value it rejected.
struct TreeReader {
    let file: String
    let traceFile: (String) -> [UInt8]?
    var problems: [RuleProblem] = []

    init(file: String, traceFile: @escaping (String) -> [UInt8]? = { _ in nil }) {
        self.file = file
        self.traceFile = traceFile
    }

    mutating func report(_ path: String, _ message: String) {
        problems.append(RuleProblem(file: file, path: path, message: message))
    }

    static func child(_ path: String, _ key: String) -> String { JSONPath.child(path, key) }

    // MARK: - shapes

    /// An object's members by key; reports unknown keys (with the nearest valid one) and duplicates.
    /// `elsewhere` names other sections to point a misplaced key to, e.g. ("action", actionKeys).
    mutating func object(_ value: JSONValue, _ path: String, allowed: [String],
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

    mutating func string(_ value: JSONValue, _ path: String, nonEmpty: Bool = true) -> String? {
        guard case .string(let text) = value else {
            report(path, "expected a string, got \(value.typeName)")
            return nil
        }
        if nonEmpty, text.trimmingCharacters(in: .whitespaces).isEmpty {
            report(path, "must not be empty")
            return nil
        }
        return text
    }

    /// A scenario name or rule id: it travels in the x-hlschaos-fault header and the event log, so
    /// it must fit on one line.
    mutating func name(_ value: JSONValue, _ path: String) -> String? {
        guard let text = string(value, path) else { return nil }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            report(path, "must not contain control characters (line breaks, tabs, NUL)")
            return nil
        }
        return text
    }

    mutating func bool(_ value: JSONValue, _ path: String) -> Bool? {
        guard case .bool(let flag) = value else {
            report(path, "expected true or false, got \(value.typeName)")
            return nil
        }
        return flag
    }

    /// An integer within `range`; `name` is used in the range message.
    mutating func integer(_ value: JSONValue, _ path: String, _ name: String, in range: ClosedRange<Int>) -> Int? {
        guard case .number(_, let text) = value, JSONValue.isIntegerText(text) else {
            report(path, "expected an integer, got \(value.typeName)")
            return nil
        }
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

    mutating func seed(_ value: JSONValue, _ path: String) -> UInt64? {
        guard case .number(_, let text) = value, JSONValue.isIntegerText(text) else {
            report(path, "expected an integer, got \(value.typeName)")
            return nil
        }
        guard let number = UInt64(text) else {
            report(path, "seed must be between 0 and \(UInt64.max), got \(text)")
            return nil
        }
        return number
    }

    mutating func duration(_ value: JSONValue, _ path: String) -> Duration? {
        guard let text = string(value, path) else { return nil }
        guard let duration = TextValues.duration(text) else {
            report(path, "invalid duration \"\(text)\" (use a number and ms, s, m or h: \"500ms\", \"2s\", \"1.5s\", \"1m\")")
            return nil
        }
        return duration
    }

    mutating func rate(_ value: JSONValue, _ path: String) -> Int? {
        guard let text = string(value, path) else { return nil }
        guard let rate = TextValues.rate(text) else {
            report(path, "invalid rate \"\(text)\" (use a positive number and kbps, Mbps, Gbps, B/s, KB/s or MB/s: \"800kbps\", \"2Mbps\", \"64KB/s\")")
            return nil
        }
        return rate
    }

    /// One of a fixed set of words.
    mutating func keyword(_ value: JSONValue, _ path: String, _ name: String, in allowed: [String]) -> String? {
        guard let text = string(value, path, nonEmpty: false) else { return nil }
        guard allowed.contains(text) else {
            let hint = Suggestions.nearest(to: text, in: allowed).map { " (did you mean \"\($0)\"?)" } ?? ""
            report(path, "unknown \(name) \"\(text)\"\(hint); expected one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", "))")
            return nil
        }
        return text
    }

    /// A value or a non-empty list of values read by `read`.
    mutating func oneOrMany<T>(_ value: JSONValue, _ path: String,
                               _ read: (inout TreeReader, JSONValue, String) -> T?) -> [T]? {
        guard case .array(let elements) = value else {
            return read(&self, value, path).map { [$0] }
        }
        guard !elements.isEmpty else {
            report(path, "the list is empty")
            return nil
        }
        var results: [T] = []
        var failed = false
        for (offset, element) in elements.enumerated() {
            if let item = read(&self, element, "\(path)[\(offset)]") { results.append(item) } else { failed = true }
        }
        return failed ? nil : results
    }

    mutating func required(_ members: [String: (JSONValue, String)], _ key: String, _ path: String) -> (JSONValue, String)? {
        guard let member = members[key] else {
            report(path, "missing required key \"\(key)\"")
            return nil
        }
        return member
    }
}
