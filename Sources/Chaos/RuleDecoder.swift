import Foundation
import JSON
import SpecReading

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
        var reader = TreeReader(file: file, loadFile: traceFile)
        let scenario = reader.scenario(value)
        if let scenario, reader.problems.isEmpty { return scenario }
        throw RuleFileError(problems: reader.problems.map { RuleProblem(file: $0.file ?? file, path: $0.path, message: $0.message) })
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

/// The rule files' readers that no other document needs; the shapes are in `TreeReader+…` files,
/// the values and problems in `SpecReading`'s `TreeReader`.
extension TreeReader {
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

    /// A rate in whole bytes per second ("800kbps" is 100,000), at least 1: a throttle or a
    /// throughput bound of nothing means nothing.
    mutating func bytesPerSecond(_ value: JSONValue, _ path: String) -> Int? {
        guard let text = string(value, path), let rate = reported(ValueText.rate(text), path) else { return nil }
        let bytes = rate.bytesPerSecond.rounded()
        guard bytes >= 1 else {
            report(path, "the rate \"\(text)\" is less than 1 B/s (use a rate above 0, such as \"800kbps\")")
            return nil
        }
        return Int(bytes)
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
}
