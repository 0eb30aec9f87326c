import Chaos
import Foundation
import Logging
import NIOConcurrencyHelpers

/// The rules in force: the scenarios given with `--rules` (every session) plus presets from the
/// preset folder that a device URL picks by name (`/s/tv1+segment-503/…`). Rule files are re-read
/// when they change or on `reload()`; a file that no longer validates leaves the running rules in
/// place and the problems are logged.
public final class RuleBook: Sendable {
    public let ruleFiles: [String]
    public let presetDirectory: String?
    private let logger: Logger
    private let state = NIOLockedValueBox(State())

    private struct State {
        var scenarios: [Scenario] = []
        var stamps: [String: FileStamp] = [:]
        var presets: [String: Scenario] = [:]
        var presetStamps: [String: FileStamp] = [:]
        var engines: [String: RuleEngine] = [:]
    }

    public struct UnknownPreset: Error, CustomStringConvertible {
        public var name: String
        public var available: [String]
        public var description: String {
            let hint = ValueSyntax.suggestion(for: name, in: available).map { " (did you mean \"\($0)\"?)" } ?? ""
            return "no preset named \"\(name)\"\(hint); presets: \(available.joined(separator: ", "))"
        }
    }

    /// Loads every file; throws (with every problem of every file) when one does not validate.
    public init(ruleFiles: [String], presetDirectory: String?, logger: Logger = Logger(label: "hlschaos.rules")) throws(RuleFileError) {
        self.ruleFiles = ruleFiles
        self.presetDirectory = presetDirectory
        self.logger = logger
        let (scenarios, stamps, problems) = Self.read(ruleFiles)
        if !problems.isEmpty { throw RuleFileError(problems: problems) }
        let presets = Self.readPresets(presetDirectory, logger: logger)
        state.withLockedValue {
            $0.scenarios = scenarios
            $0.stamps = stamps
            $0.presets = presets
            $0.presetStamps = Self.presetStamps(presetDirectory)
        }
    }

    public var scenarios: [Scenario] { state.withLockedValue { $0.scenarios } }
    public var presetNames: [String] { state.withLockedValue { $0.presets.keys.sorted() } }

    /// The engine for a session: the global scenarios followed by the presets it asked for.
    public func engine(presets names: [String]) throws(UnknownPreset) -> RuleEngine {
        let key = names.joined(separator: "+")
        let result: Result<RuleEngine, UnknownPreset> = state.withLockedValue { state in
            if let cached = state.engines[key] { return .success(cached) }
            var scenarios = state.scenarios
            for name in names {
                guard let preset = state.presets[name] else {
                    return .failure(UnknownPreset(name: name, available: state.presets.keys.sorted()))
                }
                scenarios.append(preset)
            }
            let engine = RuleEngine(scenarios: scenarios)
            state.engines[key] = engine
            return .success(engine)
        }
        return try result.get()
    }

    /// Re-reads the rule files (all of them, or only those whose modification time changed).
    /// Returns the problems that kept the running rules in place; empty when the reload happened.
    @discardableResult
    public func reload(onlyIfChanged: Bool = false) -> [RuleProblem] {
        if onlyIfChanged {
            let (known, knownPresets) = state.withLockedValue { ($0.stamps, $0.presetStamps) }
            let changed = ruleFiles.contains { FileStamp(path: $0) != known[$0] }
                || Self.presetStamps(presetDirectory) != knownPresets
            guard changed else { return [] }
        }
        let (scenarios, stamps, problems) = Self.read(ruleFiles)
        let presetStamps = Self.presetStamps(presetDirectory)
        guard problems.isEmpty else {
            state.withLockedValue {  // do not report the same broken file every second
                $0.stamps = stamps
                $0.presetStamps = presetStamps
            }
            for problem in problems { logger.error("rules not reloaded, the running rules stay: \(problem)") }
            return problems
        }
        let presets = Self.readPresets(presetDirectory, logger: logger)
        state.withLockedValue {
            $0.scenarios = scenarios
            $0.stamps = stamps
            $0.presets = presets
            $0.presetStamps = presetStamps
            $0.engines = [:]
        }
        logger.info("rules reloaded: \(scenarios.map(\.name).joined(separator: ", "))")
        return []
    }

    /// Polls the rule files' modification times until the task is cancelled.
    public func watch(every interval: Duration = .seconds(1)) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            reload(onlyIfChanged: true)
        }
    }

    private static func read(_ files: [String]) -> ([Scenario], [String: FileStamp], [RuleProblem]) {
        let stamps = Dictionary(uniqueKeysWithValues: Set(files).map { ($0, FileStamp(path: $0)) })
            .compactMapValues { $0 }
        do {
            return (try RuleFiles.load(paths: files), stamps, [])
        } catch {
            return ([], stamps, error.problems)
        }
    }

    /// Presets are the valid `*.json` files of the folder, by file name without `.json`.
    private static func readPresets(_ directory: String?, logger: Logger) -> [String: Scenario] {
        guard let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [:] }
        var presets: [String: Scenario] = [:]
        for name in names.sorted() where name.hasSuffix(".json") && name != "schema.json" {
            let path = (directory as NSString).appendingPathComponent(name)
            do {
                presets[String(name.dropLast(5))] = try RuleDecoder.decodeFile(atPath: path)
            } catch {
                logger.warning("preset \(name) skipped: \(error)")
            }
        }
        return presets
    }

    /// Modification times of the preset folder's JSON files: a preset edited, added or removed
    /// while the proxy runs is picked up like a `--rules` file.
    private static func presetStamps(_ directory: String?) -> [String: FileStamp] {
        guard let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [:] }
        var stamps: [String: FileStamp] = [:]
        for name in names where name.hasSuffix(".json") {
            stamps[name] = FileStamp(path: (directory as NSString).appendingPathComponent(name))
        }
        return stamps
    }
}

/// What tells that a rule file changed: its modification time and size, from one stat(2).
/// (FileManager's attributes read /etc/passwd and /etc/group for every file, every second.)
struct FileStamp: Equatable {
    var seconds: Int
    var nanoseconds: Int
    var size: Int

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        seconds = info.st_mtim.tv_sec
        nanoseconds = info.st_mtim.tv_nsec
        size = Int(info.st_size)
    }
}
