import Chaos
import Foundation
import Logging
import Presets
import Testing
@testable import RuleLoading
import TestSupport

/// Presets: built into the binary, a preset folder adds and overrides by name, a broken preset file
/// never takes a working preset away; and the engine cache per preset combination stays bounded.
@Suite struct RuleBookTests {
    static let rulesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("rules")

    static let repositoryPresets: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: rulesDirectory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") && $0 != "schema.json" }.map { String($0.dropLast(5)) }.sorted()
    }()

    @Test func withoutAFolderEveryPresetOfRulesIsBuiltIn() throws {
        let log = LogCapture()
        let book = try RuleBook(ruleFiles: [], logger: log.logger)
        let count = Self.repositoryPresets.count
        #expect(count >= 31)
        #expect(book.presetNames == Self.repositoryPresets)
        #expect(book.presetSummary == "\(count) presets: \(count) built in")
        #expect(log.lines(.info) == ["\(count) presets: \(count) built in"])
        #expect(log.lines(.error) == [])
        let engine = try book.engine(presets: ["status-503"])
        #expect(engine.entries.map(\.reference.description) == ["status-503/top-msn8-10-503"])
    }

    @Test func aFolderAddsPresetsAndOverridesBuiltInOnesByName() throws {
        try withTemporaryFolder("presets") { folder in
            try folder.file("status-503.json", preset("status-503", id: "from-folder", status: 500))
            try folder.file("master-500.json", preset("master-500", id: "m", status: 500))
            try folder.file("notes.txt", "not a preset")
            let log = LogCapture()
            let book = try RuleBook(ruleFiles: [], presetDirectory: folder.path, logger: log.logger)
            let count = Self.repositoryPresets.count
            let summary = "\(count + 1) presets: \(count) built in, 2 from \(folder.path) (overriding: status-503)"
            #expect(book.presetSummary == summary)
            #expect(log.lines(.info) == [summary])
            #expect(book.presetNames == (Self.repositoryPresets + ["master-500"]).sorted())
            #expect(try book.engine(presets: ["status-503"]).entries.map(\.reference.description) == ["status-503/from-folder"])
            #expect(try book.engine(presets: ["master-500", "gap"]).entries.map(\.reference.scenario) == ["master-500", "gap"])
        }
    }

    @Test func aBrokenPresetFileIsLoggedAndItsPreviousVersionStaysInForce() throws {
        try withTemporaryFolder("presets") { folder in
            // Broken from the start: the built-in preset of that name stays; a new name is not there.
            try folder.file("status-503.json", #"{"name": "status-503", "rules": [{"id": "x", "match": {}, "action": {"status": 1503}}]}"#)
            try folder.file("master-500.json", #"{"name": "master-500", "rules": ["#)
            try folder.file("gap.json", preset("gap", id: "folder-gap", status: 500))
            let log = LogCapture()
            let book = try RuleBook(ruleFiles: [], presetDirectory: folder.path, logger: log.logger)
            let errors = log.lines(.error)
            #expect(errors.count == 2)
            #expect(errors.contains {
                $0.hasPrefix("preset file \(folder.path)/status-503.json not loaded, the built-in preset status-503 stays in force: ")
                    && $0.hasSuffix(": $.rules[0].action.status: status must be between 100 and 599, got 1503")
            })
            #expect(errors.contains {
                $0.hasPrefix("preset file \(folder.path)/master-500.json not loaded, no preset master-500 until it is fixed: $: ")
            })
            #expect(try book.engine(presets: ["status-503"]).entries.map(\.reference.id) == ["top-msn8-10-503"])
            #expect(throws: RuleBook.PresetSelectionError.self) { try book.engine(presets: ["master-500"]) }
            #expect(try book.engine(presets: ["gap"]).entries.map(\.reference.id) == ["folder-gap"])

            // Fixed, then broken again on a reload: the version that last parsed stays.
            try folder.file("master-500.json", preset("master-500", id: "m", status: 500))
            #expect(book.reload().map(\.file) == ["\(folder.path)/status-503.json"])
            #expect(try book.engine(presets: ["master-500"]).entries.map(\.reference.id) == ["m"])
            try folder.file("master-500.json", #"{"name": "master-500", "rules": [{"id": "m2", "match": {}, "action": {"stauts": 503}}]}"#)
            try folder.file("gap.json", "{")
            let problems = book.reload()
            #expect(problems.map(\.file).sorted() == ["\(folder.path)/gap.json", "\(folder.path)/master-500.json", "\(folder.path)/status-503.json"])
            #expect(try book.engine(presets: ["master-500"]).entries.map(\.reference.id) == ["m"])
            #expect(try book.engine(presets: ["gap"]).entries.map(\.reference.id) == ["folder-gap"])
            #expect(log.lines(.error).contains {
                $0.hasPrefix("preset file \(folder.path)/master-500.json not loaded, its previous version stays in force: ")
                    && $0.contains("unknown key \"stauts\"")
            })

            // A file removed: the built-in preset of that name comes back.
            try FileManager.default.removeItem(atPath: folder.path + "/gap.json")
            book.reload(onlyIfChanged: true)
            #expect(try book.engine(presets: ["gap"]).entries.map(\.reference.scenario).allSatisfy { $0 == "gap" })
            #expect(try !book.engine(presets: ["gap"]).entries.map(\.reference.id).contains("folder-gap"))
        }
    }

    @Test func aFolderThatCannotBeReadIsNamedInTheSummary() throws {
        try withTemporaryFolder("presets") { folder in
            let missing = folder.path("no-such-folder")
            let book = try RuleBook(ruleFiles: [], presetDirectory: missing, logger: LogCapture().logger)
            let count = Self.repositoryPresets.count
            #expect(book.presetSummary == "\(count) presets: \(count) built in, 0 from \(missing) (the folder cannot be read)")
            #expect(try book.engine(presets: ["gap"]).entries.map(\.reference.scenario) == ["gap"])
        }
    }

    @Test func aPresetNamedTwiceInOneURLAppliesOnce() throws {
        let book = try RuleBook(ruleFiles: [], logger: LogCapture().logger)
        let engine = try book.engine(presets: ["status-503", "gap", "status-503", "gap"])
        #expect(engine.entries.map(\.reference.scenario) == ["status-503", "gap"])
        _ = try book.engine(presets: ["status-503", "gap"])
        #expect(book.engineCacheCount == 1)
    }

    @Test func moreDistinctPresetsThanTheLimitAreRefusedWithTheCountAndTheLimit() throws {
        let book = try RuleBook(ruleFiles: [], maxPresetsPerURL: 3, logger: LogCapture().logger)
        let names = Array(Self.repositoryPresets.prefix(4))
        do {
            _ = try book.engine(presets: names)
            Issue.record("four presets accepted with a limit of three")
        } catch {
            guard case .tooMany = error else { Issue.record("unexpected \(error)"); return }
            #expect(error.description == "too many presets in one URL: 4 given, at most 3 can be combined")
        }
        // Repetitions do not count.
        #expect(try book.engine(presets: Array(names.prefix(3)) + names.prefix(3)).entries.count > 0)
        #expect(book.engineCacheCount == 1)

        do {
            _ = try book.engine(presets: ["statsu-503"])
            Issue.record("unknown preset accepted")
        } catch {
            guard case .unknown = error else { Issue.record("unexpected \(error)"); return }
            #expect(error.description.hasPrefix("no preset named \"statsu-503\" (did you mean \"status-503\"?); presets: "))
        }
    }

    @Test func theEngineCacheEvictsTheLeastRecentlyUsedCombinationAndSaysSoOnce() throws {
        let log = LogCapture()
        let book = try RuleBook(ruleFiles: [], engineCacheCapacity: 2, logger: log.logger)
        _ = try book.engine(presets: ["gap"])
        _ = try book.engine(presets: ["status-503"])
        _ = try book.engine(presets: ["gap"])
        #expect(log.lines(.notice) == [])
        _ = try book.engine(presets: ["status-404"])
        #expect(book.engineCacheCount == 2)
        #expect(book.cachedPresetCombinations == ["gap", "status-404"])
        let notices = log.lines(.notice)
        #expect(notices.count == 1)
        #expect(notices.first?.contains("more than 2 preset combinations") == true)
        #expect(notices.first?.contains("\"engineCacheSize\"") == true)

        _ = try book.engine(presets: ["status-503", "gap"])
        _ = try book.engine(presets: ["status-500"])
        #expect(book.engineCacheCount == 2)
        #expect(book.cachedPresetCombinations == ["status-500", "status-503+gap"])
        #expect(log.lines(.notice).count == 1)
    }
}

@Suite struct BuiltInPresetsTests {
    /// The binary carries exactly the files of rules/: same names, same bytes.
    @Test func builtInPresetsAreTheBytesOfRules() throws {
        let directory = RuleBookTests.rulesDirectory
        #expect(BuiltInPresets.files.map(\.name) == RuleBookTests.repositoryPresets)
        for file in BuiltInPresets.files {
            let data = try #require(FileManager.default.contents(atPath: directory.appendingPathComponent(file.name + ".json").path))
            #expect(file.bytes == [UInt8](data), "\(file.name)")
        }
    }
}

func preset(_ name: String, id: String, status: Int) -> String {
    #"{"name": "\#(name)", "description": "test", "rules": [{"id": "\#(id)", "match": {"kind": "master"}, "action": {"status": \#(status)}}]}"#
}

/// Collects what a `Logger` logs, by level.
final class LogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(level: Logger.Level, message: String)] = []

    var logger: Logger {
        Logger(label: "test") { _ in Handler(capture: self) }
    }

    func lines(_ level: Logger.Level) -> [String] {
        lock.withLock { entries.filter { $0.level == level }.map(\.message) }
    }

    fileprivate func append(_ level: Logger.Level, _ message: String) {
        lock.withLock { entries.append((level, message)) }
    }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            capture.append(event.level, event.message.description)
        }
    }
}
