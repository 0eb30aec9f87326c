import Chaos
import Testing

/// `"play"`: the demo stream a scenario is written for (hlschaos run, the matrix).
@Suite struct PlayHintTests {
    static func json(_ play: String) -> String {
        #"{"name": "t", "play": \#(play), "rules": [{"id": "r", "match": {}, "action": {"delay": "1s"}}]}"#
    }

    @Test func decodes() throws {
        let scenario = try decode(Self.json(#"{"stream": "live", "flavour": "aes", "for": "30s"}"#))
        #expect(scenario.play == PlayHint(stream: "live", flavour: "aes", seconds: 30))
        #expect(try decode(Self.json("{}")).play == PlayHint())
        #expect(try decode(#"{"name": "t", "rules": [{"id": "r", "match": {}, "action": {"delay": "1s"}}]}"#).play == nil)
    }

    @Test(arguments: [
        (#"{"stream": "livee"}"#, [#"t.json: $.play.stream: unknown stream "livee" (did you mean "live"?); the demo has "vod", "live", "ll", "steering""#]),
        (#"{"flavor": "ts"}"#, [#"t.json: $.play.flavor: unknown key "flavor" (did you mean "flavour"?)"#]),
        (#"{"stream": "live", "flavour": "byterange"}"#, [#"t.json: $.play.flavour: the demo's live stream has no "byterange" flavour (ts, fmp4, aes)"#]),
        (#"{"for": "long"}"#, [#"t.json: $.play.for: invalid duration "long" (use a number and ms, s, m or h: "500ms", "2s", "1.5s", "1m")"#]),
        (#""live""#, ["t.json: $.play: expected an object, got a string"]),
    ])
    func reportsExactProblem(_ play: String, _ expected: [String]) {
        #expect(problems(Self.json(play)) == expected, "\(play)")
    }
}
