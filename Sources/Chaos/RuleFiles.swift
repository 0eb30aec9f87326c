import Foundation

/// Loading several rule files at once (`--rules FILE…`, reloads, presets by name).
public enum RuleFiles {
    /// Decodes every file; throws every problem of every file, plus scenario names used twice
    /// (rule counters are keyed by scenario name and rule id, so names must be unique).
    /// A link trace a file names is read beside it, else from `builtInTraces`.
    public static func load(paths: [String], builtInTraces: @escaping (String) -> [UInt8]? = { _ in nil }) throws(RuleFileError) -> [Scenario] {
        var scenarios: [Scenario] = []
        var problems: [RuleProblem] = []
        var owners: [String: String] = [:]
        for path in paths {
            do {
                let scenario = try RuleDecoder.decodeFile(atPath: path, builtInTraces: builtInTraces)
                if let owner = owners[scenario.name] {
                    problems.append(RuleProblem(file: path, path: "$.name",
                                                message: "scenario name \"\(scenario.name)\" is already used by \(owner)"))
                } else {
                    owners[scenario.name] = path
                    scenarios.append(scenario)
                }
            } catch {
                problems += error.problems
            }
        }
        guard problems.isEmpty else { throw RuleFileError(problems: problems) }
        return scenarios
    }

    /// The preset file for a name ("status-503" → DIRECTORY/status-503.json) if it exists.
    /// Names are restricted to letters, digits, "-" and "_" so a URL cannot reach other files.
    public static func presetPath(named name: String, in directory: String) -> String? {
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), name != "schema" else { return nil }
        let path = (directory as NSString).appendingPathComponent(name + ".json")
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
}
