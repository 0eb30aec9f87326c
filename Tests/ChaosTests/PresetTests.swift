import Foundation
import Testing
@testable import Chaos

/// The presets in rules/: all valid, all documented, covering every row they must cover.
@Suite struct PresetTests {
    static let rulesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("rules")

    static let presetFiles: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: rulesDirectory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") && $0 != "schema.json" }.sorted()
    }()

    static func load(_ file: String) throws -> Scenario {
        try RuleDecoder.decodeFile(atPath: rulesDirectory.appendingPathComponent(file).path)
    }

    @Test(arguments: presetFiles)
    func presetValidatesAndIsDocumented(_ file: String) throws {
        let data = try #require(FileManager.default.contents(atPath: Self.rulesDirectory.appendingPathComponent(file).path))
        let traces = { (name: String) in FileManager.default.contents(atPath: Self.rulesDirectory.appendingPathComponent(name).path).map { [UInt8]($0) } }
        #expect(RuleDecoder.problems(in: [UInt8](data), file: file, traceFile: traces).map(\.description) == [])
        let scenario = try Self.load(file)
        #expect(scenario.name + ".json" == file, "a preset is chosen by name: name = file name")
        #expect(scenario.description?.isEmpty == false)
        #expect(scenario.reference?.hasPrefix("error-paths §") == true)
        #expect(Set(RuleKeys.expectedInEveryPreset).isSubset(of: scenario.expected.keys), "expected reactions for every player family")
        // Targets fit the demo origin: variants 0...2, audio en/fr.
        for rule in scenario.rules {
            if case .attributes(let indexes, _, _, _)? = rule.match.variant { #expect(indexes?.allSatisfy { $0 <= 2 } ?? true) }
            if let language = rule.match.rendition?.language { #expect(["en", "fr"].contains(language)) }
        }
    }

    /// Every preset says what a conforming player does (documented, with the reference) and what the
    /// observed players do (only where `expected` records an observation for that player).
    @Test(arguments: presetFiles)
    func presetHasExpectations(_ file: String) throws {
        let scenario = try Self.load(file)
        #expect(!scenario.expectations.isEmpty)
        let documented = scenario.expectations.filter(\.isDocumented)
        // The references describe no reaction to damaged media bytes (error-paths §5: "not in the
        // documented HTTP rows"): that preset has observed expectations only.
        if file != "corrupted-segment.json" {
            #expect(!documented.isEmpty, "no documented expectation")
        }
        for expectation in documented {
            #expect(expectation.note?.hasPrefix("error-paths §") == true, "\(expectation): the note must cite error-paths")
        }
        for expectation in scenario.expectations where !expectation.isDocumented {
            #expect(expectation.note?.hasPrefix("Observed with ") == true, "\(expectation)")
            for player in expectation.players {
                let family = try #require(RuleKeys.expectedFamily(ofPlayer: player), "\(player): no expected family")
                #expect(scenario.expected[family]?.contains("Observed") == true,
                        "\(expectation): expected.\(family) records no observation of \(player)")
            }
        }
    }

    @Test func thereArePresets() {
        #expect(Self.presetFiles.count >= 31)
    }

    @Test func everyRequiredScenarioHasAPreset() {
        let required = [
            "status-401", "status-403", "status-404", "status-410", "status-500", "status-501", "status-502",
            "status-503", "status-504", "gap", "stale-live-freeze", "stale-playlist-404", "strip-variant",
            "strip-audio-rendition", "failover-backup", "variant-gone-410", "byte-ranges-501", "timeout-master",
            "timeout-media-playlist", "timeout-segment", "timeout-key", "playlist-format-error", "key-format-error",
            "session-data-format-error", "live-lag", "sequence-backwards", "reset-mid-segment", "truncated-segment",
            "corrupted-segment", "throttle-downswitch", "live-premature-end",
        ]
        let present = Set(Self.presetFiles.map { String($0.dropLast(5)) })
        #expect(Set(required).subtracting(present) == [])
    }

    @Test func everyStatusRowIsCited() throws {
        let references = try Self.presetFiles.map { try Self.load($0).reference ?? "" }
        for code in [401, 403, 404, 410, 500, 501, 502, 503, 504] {
            #expect(references.contains { $0.hasPrefix("error-paths §1: \(code)") }, "row \(code)")
        }
    }

    @Test func statusPresetsAnswerOnTheTargetSegmentsOnly() throws {
        let engine = RuleEngine(scenario: try Self.load("status-503.json"))
        var state = SessionState(sessionID: "s")
        let hit = engine.plan(for: segment(9, variant: v2, session: "s"), state: &state, now: .zero)
        #expect(hit.response == .status(code: 503, headers: [HTTPHeaderField(name: "Retry-After", value: "2")], body: nil))
        #expect(engine.plan(for: segment(9, variant: v1, session: "s"), state: &state, now: .zero).isEmpty)
        #expect(engine.plan(for: segment(11, variant: v2, session: "s"), state: &state, now: .zero).isEmpty)

        let auth = RuleEngine(scenario: try Self.load("status-401.json"))
        guard case .status(401, let headers, _)? = auth.plan(for: segment(8, variant: v2, session: "s"), state: &state, now: .zero).response else {
            Issue.record("401 preset does not answer 401")
            return
        }
        #expect(headers.map(\.name) == ["WWW-Authenticate"])
    }

    @Test func failoverPresetFailsOnlyThePrimaryAfterTenSeconds() throws {
        let engine = RuleEngine(scenario: try Self.load("failover-backup.json"))
        var state = SessionState(sessionID: "s")
        let master = engine.plan(for: RequestFacts(sessionID: "s", kind: .master), state: &state, now: .zero)
        #expect(master.content.map(\.action) == [.backupVariants])
        let primary = RequestFacts(sessionID: "s", kind: .media, variant: v2)
        var backup = primary
        backup.copy = .backup
        #expect(engine.plan(for: primary, state: &state, now: .seconds(5)).response == nil)
        #expect(engine.plan(for: primary, state: &state, now: .seconds(10)).response.flatMap(statusCode) == 404)
        #expect(engine.plan(for: backup, state: &state, now: .seconds(10)).response == nil)
    }

    @Test func throttlePresetLifts() throws {
        let engine = RuleEngine(scenario: try Self.load("throttle-downswitch.json"))
        var state = SessionState(sessionID: "s")
        let rates = [0, 10, 39, 40].map { second in
            engine.plan(for: segment(1, variant: v2, session: "s"), state: &state, now: .seconds(second)).response
        }
        #expect(rates == [nil, .throttle(bytesPerSecond: 37_500), .throttle(bytesPerSecond: 37_500), nil])
        #expect(engine.plan(for: segment(1, variant: v0, session: "s"), state: &state, now: .seconds(20)).isEmpty)
    }
}
