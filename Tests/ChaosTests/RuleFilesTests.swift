import Addressing
import Foundation
import Testing
import HLS
@testable import Chaos

@Suite struct RuleFilesTests {
    @Test func loadsPresetsAndRejectsDuplicateNames() throws {
        let directory = PresetTests.rulesDirectory.path
        let gap = try #require(RuleFiles.presetPath(named: "gap", in: directory))
        let scenarios = try RuleFiles.load(paths: [gap, try #require(RuleFiles.presetPath(named: "status-503", in: directory))])
        #expect(scenarios.map(\.name) == ["gap", "status-503"])
        #expect(throws: RuleFileError(problems: [RuleProblem(file: gap, path: "$.name", message: "scenario name \"gap\" is already used by \(gap)")])) {
            try RuleFiles.load(paths: [gap, gap])
        }
    }

    @Test func presetNamesCannotEscapeTheDirectory() {
        let directory = PresetTests.rulesDirectory.path
        #expect(RuleFiles.presetPath(named: "../Package", in: directory) == nil)
        #expect(RuleFiles.presetPath(named: "schema", in: directory) == nil)
        #expect(RuleFiles.presetPath(named: "no-such-preset", in: directory) == nil)
    }
}
