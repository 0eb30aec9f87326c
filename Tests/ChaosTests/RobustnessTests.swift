import Foundation
import Testing
@testable import Chaos

/// Bad input of any kind gives problems, never a crash.
@Suite struct RobustnessTests {
    @Test func truncatedPresetsAreAlwaysReported() throws {
        let url = PresetTests.rulesDirectory.appendingPathComponent("failover-backup.json")
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: url.path)))
        let trimmed = Array(bytes.reversed().drop { $0 == 0x0A || $0 == 0x20 }.reversed())
        for cut in stride(from: 0, to: trimmed.count - 1, by: 7) {
            let found = RuleDecoder.problems(in: trimmed[..<cut], file: "cut.json")
            #expect(!found.isEmpty, "cut at \(cut)")
            #expect(found.allSatisfy { $0.path == "$" || $0.path.hasPrefix("$.") || $0.path.hasPrefix("$[") })
        }
    }

    @Test func flippedBytesNeverCrash() throws {
        let url = PresetTests.rulesDirectory.appendingPathComponent("status-401.json")
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: url.path)))
        var rejected = 0
        for position in stride(from: 0, to: bytes.count, by: 3) {
            var mutated = bytes
            mutated[position] = mutated[position] &+ 1
            if !RuleDecoder.problems(in: mutated, file: "m.json").isEmpty { rejected += 1 }
        }
        // Most single-byte changes (in keys, numbers, structure) must be caught.
        #expect(rejected > bytes.count / 3 / 4)
    }

    @Test func deepNestingAndOddInput() {
        let deep = String(repeating: "[", count: 1000)
        #expect(problems(deep) == ["t.json: $: invalid JSON at line 1, column 201: nesting deeper than 200 levels"])
        #expect(problems("") == ["t.json: $: invalid JSON at line 1, column 1: unexpected end of the document"])
        #expect(problems("\u{FEFF}{}") == [#"t.json: $: missing required key "name""#, #"t.json: $: missing required key "rules""#])
        #expect(problems(#"{"name": "\ud800", "rules": []}"#) == [#"t.json: $: invalid JSON at line 1, column 17: unpaired UTF-16 surrogate in a \u escape"#])
        #expect(problems(#"{"name": "x", "rules": [{"id": "a", "match": {"msn": 99999999999999999999}, "action": {"delay": "1s"}}]}"#)
                == ["t.json: $.rules[0].match.msn: msn is out of range: 99999999999999999999"])
        #expect(problems(#"{"name": "x", "rules": [{"id": "a", "match": {}, "action": {"delay": "99999999999h"}}]}"#)
                == [#"t.json: $.rules[0].action.delay: the duration "99999999999h" is too long (at most about 31 years)"#])
    }

    /// The origin's Content-Length is whatever it says: the largest and negative ones must not trap.
    @Test func truncationLimitsSurviveExtremeLengths() {
        #expect(Truncation.fraction(0.5).byteLimit(contentLength: Int.max) == Int.max / 2 + 1)
        #expect(Truncation.fraction(1.0).byteLimit(contentLength: Int.max) == Int.max)
        #expect(Truncation.fraction(0.999999999999).byteLimit(contentLength: Int.max - 1) != nil)
        #expect(Truncation.fraction(0.5).byteLimit(contentLength: -10) == nil)
        #expect(Truncation.afterBytes(100).byteLimit(contentLength: -10) == 0)
    }
}
