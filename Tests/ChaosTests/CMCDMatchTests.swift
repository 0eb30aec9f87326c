import CMCD
import Testing
@testable import Chaos

/// `match.cmcd`: rules aimed at what the player says in its request (buffer, startup, state…).
@Suite struct CMCDMatchTests {
    static func cmcd(_ text: String) -> CMCDData? { CMCDData.parse(target: "/s.ts?CMCD=" + text, headers: []) }

    static func facts(_ cmcd: CMCDData?) -> RequestFacts {
        var facts = segment(3)
        facts.cmcd = cmcd
        return facts
    }

    static func holds(_ match: String, _ text: String?) throws -> Bool {
        let rule = try rule(match, #"{"status": 503}"#)
        return rule.match.resourceConditionsHold(facts(text.flatMap(cmcd)), kinds: rule.match.kinds)
    }

    @Test func decodesEveryCondition() throws {
        let match = try rule(#"{"cmcd": {"present": true, "bl": {"below": "2s", "above": "500ms"}, "mtp": {"below": "2Mbps"}, "su": false, "bs": true, "sta": ["rebuffering", "k"], "ot": "v"}}"#, #"{"delay": "1s"}"#).match
        #expect(match.cmcd == CMCDCondition(
            present: true, bufferBelow: .seconds(2), bufferAbove: .milliseconds(500), throughputBelow: 250_000,
            startup: false, starvation: true, states: [.rebuffering, .seeking], objectTypes: [.video]))
    }

    @Test func bufferBelowHoldsOnlyUnderTheBound() throws {
        let match = #"{"kind": "segment", "cmcd": {"bl": {"below": "2s"}}}"#
        #expect(try Self.holds(match, "bl%3D1900"))
        #expect(try !Self.holds(match, "bl%3D2000"), "below is strict")
        #expect(try !Self.holds(match, "br%3D3000"), "no bl: the condition does not hold")
        #expect(try !Self.holds(match, nil), "no CMCD: the condition does not hold")
        // v2: the value for the request's own object type.
        #expect(try Self.holds(match, "v%3D2%2Cot%3Dv%2Cbl%3D(1500%3Bv%209000%3Ba)"))
        #expect(try !Self.holds(match, "v%3D2%2Cot%3Da%2Cbl%3D(1500%3Bv%209000%3Ba)"))
    }

    @Test func startupStarvationStateTypeAndPresence() throws {
        #expect(try Self.holds(#"{"cmcd": {"su": true}}"#, "su"))
        #expect(try !Self.holds(#"{"cmcd": {"su": true}}"#, "bl%3D100"))
        #expect(try Self.holds(#"{"cmcd": {"su": false}}"#, "bl%3D100"))
        #expect(try !Self.holds(#"{"cmcd": {"su": false}}"#, nil), "su: false asks for a request with CMCD")
        #expect(try Self.holds(#"{"cmcd": {"bs": true}}"#, "bs"))
        #expect(try Self.holds(#"{"cmcd": {"sta": "rebuffering"}}"#, "v%3D2%2Csta%3Dr"))
        #expect(try !Self.holds(#"{"cmcd": {"sta": "rebuffering"}}"#, "v%3D2%2Csta%3Dp"))
        #expect(try Self.holds(#"{"cmcd": {"ot": ["a", "v"]}}"#, "ot%3Da"))
        #expect(try Self.holds(#"{"cmcd": {"present": false}}"#, nil))
        #expect(try !Self.holds(#"{"cmcd": {"present": false}}"#, "su"))
        #expect(try Self.holds(#"{"cmcd": {"mtp": {"above": "1Mbps"}}}"#, "mtp%3D1200"))
        #expect(try !Self.holds(#"{"cmcd": {"mtp": {"above": "1Mbps"}}}"#, "mtp%3D800"))
    }

    static let problemCases: [(match: String, expected: [String])] = [
        (#"{"cmcd": {}}"#, [#"t.json: $.rules[0].match.cmcd: empty cmcd condition (give "present", "bl", "mtp", "su", "bs", "sta", "ot")"#]),
        (#"{"cmcd": {"bl": "2s"}}"#, [#"t.json: $.rules[0].match.cmcd.bl: "bl" takes {"below": "2s"} (or "above", or both), got a string"#]),
        (#"{"cmcd": {"bl": {}}}"#, [#"t.json: $.rules[0].match.cmcd.bl: give "below", "above" or both, e.g. {"below": "2s"}"#]),
        (#"{"cmcd": {"bl": {"below": "2 s"}}}"#,
         [#"t.json: $.rules[0].match.cmcd.bl.below: invalid duration "2 s" (use a number and ms, s, m or h: "500ms", "2s", "1.5s", "1m")"#]),
        (#"{"cmcd": {"bl": {"below": "1s", "above": "2s"}}}"#,
         ["t.json: $.rules[0].match.cmcd.bl: above (2s) must be less than below (1s): no buffer length is both"]),
        (#"{"cmcd": {"bl": {"under": "1s"}}}"#, [#"t.json: $.rules[0].match.cmcd.bl.under: unknown key "under" (expected one of below, above)"#]),
        (#"{"cmcd": {"mtp": {"below": 2000}}}"#, ["t.json: $.rules[0].match.cmcd.mtp.below: expected a string, got an integer"]),
        (#"{"cmcd": {"su": "yes"}}"#, ["t.json: $.rules[0].match.cmcd.su: expected true or false, got a string"]),
        (#"{"cmcd": {"sta": "stalled"}}"#,
         [#"t.json: $.rules[0].match.cmcd.sta: unknown player state (CMCD sta) "stalled"; expected one of "starting", "playing", "seeking", "rebuffering", "paused", "ended", "fatalError", "quit", "preloading""#]),
        (#"{"cmcd": {"ot": "video"}}"#,
         [#"t.json: $.rules[0].match.cmcd.ot: unknown object type (CMCD ot) "video"; expected one of "m", "a", "v", "av", "i", "c", "tt", "k", "o""#]),
        (#"{"cmcd": {"bufferLength": 1}}"#, [#"t.json: $.rules[0].match.cmcd.bufferLength: unknown key "bufferLength" (expected one of present, bl, mtp, su, bs, sta, ot)"#]),
        (#"{"cmcd": {"present": false, "su": true}}"#,
         [#"t.json: $.rules[0].match.cmcd: "present": false selects requests without CMCD, which have no CMCD values to compare: drop the other keys or "present""#]),
    ]

    @Test(arguments: problemCases.indices)
    func reportsExactProblem(_ index: Int) {
        let (match, expected) = Self.problemCases[index]
        #expect(problems(scenarioJSON(match: match, action: #"{"delay": "1s"}"#)) == expected, "\(match)")
    }

    static let expectationProblems: [(expect: String, expected: [String])] = [
        (#"[{"bufferNeverBelow": 2}]"#, [#"t.json: $.expect[0].bufferNeverBelow: "bufferNeverBelow" takes a duration such as "2s", got an integer"#]),
        (#"[{"startupWithin": "soon"}]"#,
         [#"t.json: $.expect[0].startupWithin: invalid duration "soon" (use a number and ms, s, m or h: "500ms", "2s", "1.5s", "1m")"#]),
        (#"[{"cmcdValid": false}]"#, [#"t.json: $.expect[0].cmcdValid: "cmcdValid" takes true, got false (remove the expectation instead)"#]),
    ]

    @Test(arguments: expectationProblems.indices)
    func reportsExactExpectationProblem(_ index: Int) {
        let (expect, expected) = Self.expectationProblems[index]
        #expect(problems(ExpectationTests.json(expect)) == expected, "\(expect)")
    }
}
