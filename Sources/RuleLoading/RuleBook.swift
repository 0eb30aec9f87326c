import Chaos
import Foundation
import Logging
import NIOConcurrencyHelpers
import Presets

/// The rules in force: the scenarios given with `--rules` (every session) plus the presets a
/// device URL picks by name (`/s/tv1+status-503/…`). Presets are the files of `rules/` built into
/// the binary, added to and overridden by name by the `*.json` files of the preset folder, if one
/// is given. Files are re-read when they change or on `reload()`: a rule file that no longer
/// validates leaves the running rules in place, a preset file that no longer parses leaves its
/// previous version (or the built-in one) in place; the problems are logged.
public final class RuleBook: Sendable {
    /// A link trace shipped with hlschaos by the name a rule file gives it (`traces/commute.csv`).
    public static let builtInTrace: @Sendable (String) -> [UInt8]? = { BuiltInPresets.trace($0) }

    public let ruleFiles: [String]
    /// Extra presets; nil: the built-in presets only.
    public let presetDirectory: String?
    /// Most distinct presets one device URL may pick.
    public let maxPresetsPerURL: Int
    /// Most preset combinations whose engines are kept; the least recently used one goes first.
    public let engineCacheCapacity: Int
    private let logger: Logger
    private let builtIns: [String: Scenario]
    private let state = NIOLockedValueBox(State())

    private struct State {
        var scenarios: [Scenario] = []
        var stamps: [String: FileStamp] = [:]
        /// The last version of each preset folder file that parsed, by preset name.
        var folderPresets: [String: Scenario] = [:]
        /// nil: the folder cannot be listed.
        var presetStamps: [String: FileStamp]? = [:]
        /// Built-ins overridden and extended by `folderPresets`.
        var presets: [String: Scenario] = [:]
        var presetSummary = ""
        var engines: [String: CachedEngine] = [:]
        /// The engine of a URL without presets (most requests): kept apart, with no key to build.
        var withoutPresets: RuleEngine?
        var useClock: UInt64 = 0
        var evictionLogged = false
    }

    private struct CachedEngine {
        var engine: RuleEngine
        var lastUse: UInt64
    }

    /// Where the rules come from and how many engines are kept: `--rules`, `--presets`, and the
    /// config file's "rules", "presets", "maxPresetsPerURL", "engineCacheSize".
    public struct Settings: Sendable, Equatable {
        public var ruleFiles: [String] = []
        /// Folder of extra presets (`*.json`): they add to the built-in presets (rules/ of the
        /// repository, compiled in) and replace a built-in of the same name.
        public var presetDirectory: String?
        public var maxPresetsPerURL = 8
        public var engineCacheSize = 256
        public init() {}
    }

    public struct UnknownPreset: Error, CustomStringConvertible {
        public var name: String
        public var available: [String]
        public var description: String {
            let hint = ValueSyntax.suggestion(for: name, in: available).map { " (did you mean \"\($0)\"?)" } ?? ""
            return "no preset named \"\(name)\"\(hint); presets: \(available.joined(separator: ", "))"
        }
    }

    public struct TooManyPresets: Error, CustomStringConvertible {
        /// Distinct presets in the URL.
        public var given: Int
        public var limit: Int
        public var description: String {
            "too many presets in one URL: \(given) given, at most \(limit) can be combined"
        }
    }

    /// Why the presets of a device URL cannot be used: an unknown name (404) or too many (400).
    public enum PresetSelectionError: Error, CustomStringConvertible {
        case unknown(UnknownPreset)
        case tooMany(TooManyPresets)

        public var description: String {
            switch self {
            case .unknown(let error): error.description
            case .tooMany(let error): error.description
            }
        }
    }

    /// Loads every file; throws (with every problem of every file) when a rule file does not
    /// validate. Preset problems are logged, not thrown: that preset is left out (or stays built in).
    public init(
        ruleFiles: [String],
        presetDirectory: String? = nil,
        maxPresetsPerURL: Int = 8,
        engineCacheCapacity: Int = 256,
        builtInPresets: [(name: String, bytes: [UInt8])] = BuiltInPresets.files,
        logger: Logger = Logger(label: "hlschaos.rules")
    ) throws(RuleFileError) {
        self.ruleFiles = ruleFiles
        self.presetDirectory = presetDirectory
        self.maxPresetsPerURL = max(maxPresetsPerURL, 1)
        self.engineCacheCapacity = max(engineCacheCapacity, 1)
        self.logger = logger
        var builtIns: [String: Scenario] = [:]
        for file in builtInPresets {
            do {
                builtIns[file.name] = try RuleDecoder.decode(file.bytes, file: "built-in preset \(file.name).json", traceFile: BuiltInPresets.trace)
            } catch {
                logger.error("preset not loaded: \(error.problems.map(\.description).joined(separator: "; "))")
            }
        }
        self.builtIns = builtIns
        let (scenarios, stamps, problems) = Self.read(ruleFiles)
        if !problems.isEmpty { throw RuleFileError(problems: problems) }
        let presetStamps = Self.presetStamps(presetDirectory)
        let folder = readPresets(stamps: presetStamps ?? [:], previous: [:])
        let summary = Self.summary(builtIns: builtIns, folder: folder, directory: presetDirectory, readable: presetStamps != nil)
        state.withLockedValue {
            $0.scenarios = scenarios
            $0.stamps = stamps
            $0.folderPresets = folder
            $0.presetStamps = presetStamps
            $0.presets = builtIns.merging(folder) { _, fromFolder in fromFolder }
            $0.presetSummary = summary
        }
        logger.info("\(summary)")
    }

    /// The rules of `settings`, read as `init(ruleFiles:…)` reads them.
    public convenience init(settings: Settings, logger: Logger = Logger(label: "hlschaos.rules")) throws(RuleFileError) {
        try self.init(
            ruleFiles: settings.ruleFiles, presetDirectory: settings.presetDirectory, maxPresetsPerURL: settings.maxPresetsPerURL,
            engineCacheCapacity: settings.engineCacheSize, logger: logger)
    }

    public var scenarios: [Scenario] { state.withLockedValue { $0.scenarios } }
    /// The preset in force under `name` (built in, or from the preset folder).
    public func preset(named name: String) -> Scenario? { state.withLockedValue { $0.presets[name] } }

    public var presetNames: [String] { state.withLockedValue { $0.presets.keys.sorted() } }
    /// "46 presets: 44 built in, 3 from DIR (overriding: gap)": what start-up and reloads log.
    public var presetSummary: String { state.withLockedValue { $0.presetSummary } }
    /// Engines cached, one per distinct preset combination asked for (metrics, tests).
    public var engineCacheCount: Int { state.withLockedValue { $0.engines.count } }
    /// The preset combinations whose engines are cached, sorted (tests).
    var cachedPresetCombinations: [String] { state.withLockedValue { $0.engines.keys.sorted() } }

    /// Two layers: the rule files, then the URL's presets (API scenarios go between them).
    private static func engine(scenarios: [Scenario], presets: [Scenario]) -> RuleEngine {
        RuleEngine(layers: [RuleEngine.Layer(scenarios), RuleEngine.Layer(presets)])
    }

    /// The engine for a session: the global scenarios followed by the presets it asked for, each
    /// once, in the order first named.
    public func engine(presets requested: [String]) throws(PresetSelectionError) -> RuleEngine {
        if requested.isEmpty {
            return state.withLockedValue { state in
                if let engine = state.withoutPresets { return engine }
                let engine = Self.engine(scenarios: state.scenarios, presets: [])
                state.withoutPresets = engine
                return engine
            }
        }
        var seen = Set<String>()
        let names = requested.count < 2 ? requested : requested.filter { seen.insert($0).inserted }
        guard names.count <= maxPresetsPerURL else {
            throw .tooMany(TooManyPresets(given: names.count, limit: maxPresetsPerURL))
        }
        let key = names.joined(separator: "+")
        let capacity = engineCacheCapacity
        let (result, evicted) = state.withLockedValue { state -> (Result<RuleEngine, PresetSelectionError>, Bool) in
            state.useClock &+= 1
            if let cached = state.engines[key] {
                state.engines[key]?.lastUse = state.useClock
                return (.success(cached.engine), false)
            }
            var presets: [Scenario] = []
            for name in names {
                guard let preset = state.presets[name] else {
                    return (.failure(.unknown(UnknownPreset(name: name, available: state.presets.keys.sorted()))), false)
                }
                presets.append(preset)
            }
            let engine = Self.engine(scenarios: state.scenarios, presets: presets)
            var firstEviction = false
            if state.engines.count >= capacity,
               let oldest = state.engines.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                state.engines.removeValue(forKey: oldest)
                firstEviction = !state.evictionLogged
                state.evictionLogged = true
            }
            state.engines[key] = CachedEngine(engine: engine, lastUse: state.useClock)
            return (.success(engine), firstEviction)
        }
        if evicted {
            logger.notice("""
                more than \(capacity) preset combinations in use: the least recently used ones are \
                rebuilt when asked for again, with fresh counters (config "engineCacheSize")
                """)
        }
        return try result.get()
    }

    /// Re-reads the rule files and the preset folder (all of them, or only when a modification
    /// time changed). Returns the problems that kept running rules or presets in place; empty
    /// when everything was read.
    @discardableResult
    public func reload(onlyIfChanged: Bool = false) -> [RuleProblem] {
        let (knownStamps, knownPresetStamps, previousFolder, previousSummary) = state.withLockedValue {
            ($0.stamps, $0.presetStamps, $0.folderPresets, $0.presetSummary)
        }
        let presetStamps = Self.presetStamps(presetDirectory)
        let rulesChanged = !onlyIfChanged || ruleFiles.contains { FileStamp(path: $0) != knownStamps[$0] }
        let presetsChanged = !onlyIfChanged || presetStamps != knownPresetStamps
        guard rulesChanged || presetsChanged else { return [] }

        var problems: [RuleProblem] = []
        var newScenarios: [Scenario]?
        var newStamps = knownStamps
        if rulesChanged {
            let (scenarios, stamps, ruleProblems) = Self.read(ruleFiles)
            newStamps = stamps  // do not report the same broken file every second
            if ruleProblems.isEmpty {
                newScenarios = scenarios
            } else {
                for problem in ruleProblems { logger.error("rules not reloaded, the running rules stay: \(problem)") }
                problems += ruleProblems
            }
        }
        var newFolder: [String: Scenario]?
        if presetsChanged {
            var presetProblems: [RuleProblem] = []
            newFolder = readPresets(stamps: presetStamps ?? [:], previous: previousFolder, problems: &presetProblems)
            problems += presetProblems
        }
        let summary = newFolder.map {
            Self.summary(builtIns: builtIns, folder: $0, directory: presetDirectory, readable: presetStamps != nil)
        }
        state.withLockedValue { state in
            state.stamps = newStamps
            state.presetStamps = presetStamps
            if let newScenarios { state.scenarios = newScenarios }
            if let newFolder {
                state.folderPresets = newFolder
                state.presets = builtIns.merging(newFolder) { _, fromFolder in fromFolder }
            }
            if let summary { state.presetSummary = summary }
            if newScenarios != nil || newFolder != nil {
                state.engines = [:]
                state.withoutPresets = nil
            }
        }
        if let newScenarios {
            logger.info("rules reloaded: \(newScenarios.map(\.name).joined(separator: ", "))")
        }
        if let summary, summary != previousSummary { logger.info("\(summary)") }
        return problems
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
            return (try RuleFiles.load(paths: files, builtInTraces: BuiltInPresets.trace), stamps, [])
        } catch {
            return ([], stamps, error.problems)
        }
    }

    private func readPresets(stamps: [String: FileStamp], previous: [String: Scenario]) -> [String: Scenario] {
        var problems: [RuleProblem] = []
        return readPresets(stamps: stamps, previous: previous, problems: &problems)
    }

    /// The preset folder's `*.json` files (`stamps` lists them), by file name without `.json`. A
    /// file that does not parse keeps its `previous` version; without one, the built-in preset of
    /// that name (if any) stays in force.
    private func readPresets(stamps: [String: FileStamp], previous: [String: Scenario], problems: inout [RuleProblem]) -> [String: Scenario] {
        guard let directory = presetDirectory else { return [:] }
        var presets: [String: Scenario] = [:]
        for file in stamps.keys.sorted() {
            let name = String(file.dropLast(5))
            let path = (directory as NSString).appendingPathComponent(file)
            do {
                presets[name] = try RuleDecoder.decodeFile(atPath: path, builtInTraces: BuiltInPresets.trace)
            } catch {
                problems += error.problems
                let kept: String
                if let old = previous[name] {
                    presets[name] = old
                    kept = "its previous version stays in force"
                } else if builtIns[name] != nil {
                    kept = "the built-in preset \(name) stays in force"
                } else {
                    kept = "no preset \(name) until it is fixed"
                }
                let detail = error.problems.map { "\($0.path): \($0.message)" }.joined(separator: "; ")
                logger.error("preset file \(path) not loaded, \(kept): \(detail)")
            }
        }
        return presets
    }

    static func summary(builtIns: [String: Scenario], folder: [String: Scenario], directory: String?, readable: Bool) -> String {
        let total = builtIns.keys.count + folder.keys.filter { builtIns[$0] == nil }.count
        var text = "\(total) presets: \(builtIns.count) built in"
        if let directory {
            text += ", \(folder.count) from \(directory)"
            if !readable { text += " (the folder cannot be read)" }
            let overridden = folder.keys.filter { builtIns[$0] != nil }.sorted()
            if !overridden.isEmpty { text += " (overriding: \(overridden.joined(separator: ", ")))" }
        }
        return text
    }

    /// Modification times of the preset folder's JSON files (not `schema.json`), by file name: a
    /// preset edited, added or removed while the proxy runs is picked up like a `--rules` file.
    /// nil when the folder cannot be listed.
    private static func presetStamps(_ directory: String?) -> [String: FileStamp]? {
        guard let directory else { return [:] }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        var stamps: [String: FileStamp] = [:]
        for name in names where name.hasSuffix(".json") && name != "schema.json" {
            stamps[name] = FileStamp(path: (directory as NSString).appendingPathComponent(name))
        }
        return stamps
    }
}
