import Testing
@testable import Chaos

/// Swift Testing has an `Expectation` type too; in this module the name means the scenario's.
typealias Expectation = Chaos.Expectation

/// `"expect": [...]`: decoding, words, and every validation problem with its exact message.
@Suite struct ExpectationTests {
    static func json(_ expect: String) -> String {
        #"{"name": "t", "expect": \#(expect), "rules": [{"id": "r", "match": {}, "action": {"delay": "1s"}}]}"#
    }

    @Test func everyCheckDecodes() throws {
        let scenario = try decode(Self.json(#"""
        [
          {"switchedDown": {"within": "20s"}, "note": "session 514"},
          {"switchedUp": true},
          {"switchedUp": {}},
          {"retried": {"atLeast": 1, "atMost": 10}},
          {"failedOver": {"within": "1.5s"}},
          {"fetchedToTheEnd": true},
          {"stopped": {"within": "30s"}, "players": ["ffmpeg", "gstreamer"]},
          {"reloadCadence": "withinBounds"},
          {"reloadCadence": "tooFast", "players": "hlsjs"},
          {"neverRequested": "gapSegments"},
          {"skipped": {"atMost": 0}},
          {"outcome": "played"},
          {"outcome": ["played", "stalled"]},
          {"playerError": "fragLoadError"},
          {"playerError": {"kind": "levelLoadError", "code": 404, "fatal": false}},
          {"playerError": {"code": -12938}},
          {"playerError": true},
          {"log": "HTTP error 503"},
          {"logNot": "^Failed to open segment \\d+"},
          {"anyOf": [{"retried": {"atLeast": 1}}, {"switchedDown": {}}]},
          {"not": {"fetchedToTheEnd": true}, "players": ["gstreamer"]},
          {"movedPathway": {"to": "cdn-b", "within": "15s"}},
          {"movedPathway": true},
          {"steeringReloads": {"atMost": 0}},
          {"switchedDown": {"within": "5s", "after": "linkBelowVariant"}},
          {"switchedUp": {"after": "linkRecovered"}},
          {"switchedDown": {"after": "firstFault"}},
          {"switches": {"atMost": 6}},
          {"switches": {"atMost": 1.5, "perMinute": true}},
          {"stalls": {"atMost": 0}},
          {"utilisation": {"atLeast": "70%"}},
          {"utilisation": {"atLeast": "50%", "atMost": "72.5%"}},
          {"overshoot": {"atMost": "5s"}},
          {"bufferNeverBelow": "2s"},
          {"startupWithin": "1500ms"},
          {"cmcdValid": true}
        ]
        """#))
        let checks = scenario.expectations.map(\.check)
        #expect(checks == [
            .switchedDown(within: .seconds(20)), .switchedUp(within: nil), .switchedUp(within: nil),
            .retried(atLeast: 1, atMost: 10), .failedOver(within: .milliseconds(1500)), .fetchedToTheEnd,
            .stopped(within: .seconds(30)), .reloadCadence(.withinBounds), .reloadCadence(.tooFast),
            .neverRequested(.gapSegments), .skipped(atLeast: nil, atMost: 0), .outcome(["played"]),
            .outcome(["played", "stalled"]), .playerError(kind: "fragLoadError", code: nil, fatal: nil),
            .playerError(kind: "levelLoadError", code: 404, fatal: false), .playerError(kind: nil, code: -12938, fatal: nil),
            .playerError(kind: nil, code: nil, fatal: nil), .log("HTTP error 503"), .logNot(#"^Failed to open segment \d+"#),
            .anyOf([.retried(atLeast: 1, atMost: nil), .switchedDown(within: nil)]), .not(.fetchedToTheEnd),
            .movedPathway(to: "cdn-b", within: .seconds(15)), .movedPathway(to: nil, within: nil),
            .steeringReloads(atLeast: nil, atMost: 0),
            .switchedDownOnLink(within: .seconds(5)), .switchedUpOnLink(within: nil), .switchedDown(within: nil),
            .switches(atLeast: nil, atMost: 6, perMinute: false), .switches(atLeast: nil, atMost: 1.5, perMinute: true),
            .stalls(atLeast: nil, atMost: 0), .utilisation(atLeast: 0.7, atMost: nil), .utilisation(atLeast: 0.5, atMost: 0.725),
            .overshoot(atMost: .seconds(5)),
            .bufferNeverBelow(.seconds(2)), .startupWithin(.milliseconds(1500)), .cmcdValid,
        ])
        #expect(checks[24].key == "switchedDown" && checks[25].key == "switchedUp")
        // A switch timed from the link is another check than one timed from the first fault.
        #expect(checks[24].replacementKey != checks[26].replacementKey)
        #expect(Expectation.Check.not(checks[25]).replacementKey == checks[25].replacementKey)
        #expect(checks[20].key == "not")
        #expect(checks[20].replacementKey == "fetchedToTheEnd")
        #expect(scenario.expectations[0].note == "session 514")
        #expect(scenario.expectations[0].isDocumented)
        #expect(scenario.expectations[6].players == ["ffmpeg", "gstreamer"])
        #expect(scenario.expectations[8].players == ["hlsjs"])
        #expect(Set(checks.map(\.key)) == Set(RuleKeys.checks))
    }

    @Test func noExpectationsByDefault() throws {
        #expect(try decode(scenarioJSON(action: #"{"delay": "1s"}"#)).expectations == [])
        #expect(try decode(Self.json("[]")).expectations == [])
        // The old initialiser still works.
        #expect(Scenario(name: "x", rules: []).expectations == [])
    }

    @Test func words() {
        let cases: [(Expectation.Check, String)] = [
            (.switchedDown(within: .seconds(20)), "switched down within 20s of the first fault"),
            (.switchedUp(within: nil), "switched up"),
            (.retried(atLeast: nil, atMost: 10), "retried the faulted resource at most 10 times"),
            (.retried(atLeast: 1, atMost: nil), "retried the faulted resource at least once"),
            (.retried(atLeast: 2, atMost: 5), "retried the faulted resource 2 to 5 times"),
            (.retried(atLeast: 3, atMost: 3), "retried the faulted resource exactly 3 times"),
            (.retried(atLeast: nil, atMost: 0), "did not retry the faulted resource"),
            (.failedOver(within: .milliseconds(1500)), "failed over to a backup copy within 1.5s of the primary's failure"),
            (.fetchedToTheEnd, "kept fetching segments to the end"),
            (.stopped(within: .seconds(30)), "gave up (stopped requesting after failures) within 30s of the first fault"),
            (.reloadCadence(.withinBounds), "reloaded live playlists at the expected cadence (0.5–1.5× the target duration)"),
            (.neverRequested(.gapSegments), "never requested a segment marked EXT-X-GAP"),
            (.skipped(atLeast: nil, atMost: 0), "skipped at most 0 segments"),
            (.skipped(atLeast: 3, atMost: nil), "skipped at least 3 segments"),
            (.skipped(atLeast: 1, atMost: 1), "skipped exactly 1 segment"),
            (.outcome(["played", "stalled"]), "the player's outcome was played or stalled"),
            (.playerError(kind: "fragLoadError", code: 503, fatal: false), "the player reported a non-fatal error \"fragLoadError\" with code 503"),
            (.playerError(kind: nil, code: nil, fatal: nil), "the player reported an error"),
            (.log("HTTP error 503"), "the player's log matches /HTTP error 503/"),
            (.logNot("x"), "the player's log does not match /x/"),
            (.anyOf([.retried(atLeast: 1, atMost: nil), .switchedDown(within: nil)]),
             "retried the faulted resource at least once, or switched down"),
            (.not(.fetchedToTheEnd), "not: kept fetching segments to the end"),
            (.switchedDownOnLink(within: .seconds(5)), "switched down within 5s each time the link fell below the variant in use"),
            (.switchedUpOnLink(within: nil), "switched back up each time the link recovered"),
            (.switches(atLeast: nil, atMost: 6, perMinute: false), "switched variant at most 6 times"),
            (.switches(atLeast: 1, atMost: nil, perMinute: false), "switched variant at least once"),
            (.switches(atLeast: nil, atMost: 1.5, perMinute: true), "switched variant at most 1.5 times a minute"),
            (.switches(atLeast: nil, atMost: 0, perMinute: true), "did not switch variant"),
            (.stalls(atLeast: nil, atMost: 2), "stalled at most twice"),
            (.stalls(atLeast: nil, atMost: 0), "did not stall"),
            (.utilisation(atLeast: 0.7, atMost: nil), "used at least 70% of the link"),
            (.utilisation(atLeast: 0.5, atMost: 0.725), "used 50% to 72.5% of the link"),
            (.overshoot(atMost: .milliseconds(2500)), "spent at most 2.5s on a variant the link could not carry"),
        ]
        for (check, words) in cases { #expect(check.words == words) }
        #expect(Expectation(.fetchedToTheEnd, players: ["hlsjs"]).description == "kept fetching segments to the end (hlsjs)")
        #expect(Expectation(.fetchedToTheEnd).description == "kept fetching segments to the end (documented)")
    }

    static let problemCases: [(expect: String, expected: [String])] = [
        (#"{"retried": {"atLeast": 1}}"#, [#"t.json: $.expect: expected a list of expectations, got an object"#]),
        (#"[3]"#, ["t.json: $.expect[0]: expected an object, got an integer"]),
        (#"[{}]"#, ["t.json: $.expect[0]: no check given (use one of switchedDown, switchedUp, retried, failedOver, fetchedToTheEnd, stopped, reloadCadence, neverRequested, skipped, movedPathway, steeringReloads, outcome, playerError, log, logNot, bufferNeverBelow, startupWithin, cmcdValid, anyOf, not, switches, stalls, utilisation, overshoot)"]),
        (#"[{"note": "x"}]"#, ["t.json: $.expect[0]: no check given (use one of switchedDown, switchedUp, retried, failedOver, fetchedToTheEnd, stopped, reloadCadence, neverRequested, skipped, movedPathway, steeringReloads, outcome, playerError, log, logNot, bufferNeverBelow, startupWithin, cmcdValid, anyOf, not, switches, stalls, utilisation, overshoot)"]),
        (#"[{"retired": {"atLeast": 1}}]"#, [#"t.json: $.expect[0].retired: unknown key "retired" (did you mean "retried"?)"#]),
        (#"[{"switchDown": {}}]"#, [#"t.json: $.expect[0].switchDown: unknown key "switchDown" (did you mean "switchedDown"?)"#]),
        (#"[{"retried": {"atLeast": 1}, "skipped": {"atMost": 0}}]"#,
         [#"t.json: $.expect[0]: "retried" and "skipped" cannot be combined (one check per expectation; use "anyOf" for alternatives, or one item per check)"#]),
        (#"[{"outcome": "played"}, {"outcome": "played"}, {"retried": {"atMost": "10"}}]"#,
         ["t.json: $.expect[2].retried.atMost: expected an integer, got a string"]),
        (#"[{"retried": {"atMost": -1}}]"#, ["t.json: $.expect[0].retried.atMost: atMost must be at least 0, got -1"]),
        (#"[{"retried": {"atleast": 1}}]"#, [#"t.json: $.expect[0].retried.atleast: unknown key "atleast" (did you mean "atLeast"?)"#]),
        (#"[{"retried": {}}]"#, [#"t.json: $.expect[0].retried: give "atLeast", "atMost" or both"#]),
        (#"[{"retried": 3}]"#, [#"t.json: $.expect[0].retried: "retried" takes {"atLeast": N, "atMost": M}, got an integer"#]),
        (#"[{"skipped": {"atLeast": 5, "atMost": 2}}]"#, ["t.json: $.expect[0].skipped: atLeast (5) is greater than atMost (2)"]),
        (#"[{"switchedDown": {"within": "soon"}}]"#,
         [#"t.json: $.expect[0].switchedDown.within: invalid duration "soon" (use a number and ms, s, m or h: "500ms", "2s", "1.5s", "1m")"#]),
        (#"[{"switchedDown": {"witin": "2s"}}]"#, [#"t.json: $.expect[0].switchedDown.witin: unknown key "witin" (did you mean "within"?)"#]),
        (#"[{"failedOver": "10s"}]"#, [#"t.json: $.expect[0].failedOver: "failedOver" takes {"within": "10s"}, {} or true, got a string"#]),
        (#"[{"stopped": false}]"#, [#"t.json: $.expect[0].stopped: "stopped" takes {"within": "10s"}, {} or true, got false (remove the expectation instead)"#]),
        (#"[{"fetchedToTheEnd": false}]"#, [#"t.json: $.expect[0].fetchedToTheEnd: "fetchedToTheEnd" takes true, got false (remove the expectation instead)"#]),
        (#"[{"reloadCadence": "withinbounds"}]"#,
         [#"t.json: $.expect[0].reloadCadence: unknown reload cadence "withinbounds" (did you mean "withinBounds"?); expected one of "withinBounds", "tooFast", "tooSlow""#]),
        (#"[{"neverRequested": "gaps"}]"#,
         [#"t.json: $.expect[0].neverRequested: unknown request class "gaps" (did you mean "gapSegments"?); expected one of "gapSegments""#]),
        (#"[{"outcome": "play"}]"#,
         [#"t.json: $.expect[0].outcome: unknown outcome "play" (did you mean "played"?); expected one of "played", "failed", "stalled", "timedOut""#]),
        (#"[{"outcome": ["played", "crashed"]}]"#,
         [#"t.json: $.expect[0].outcome[1]: unknown outcome "crashed"; expected one of "played", "failed", "stalled", "timedOut""#]),
        (#"[{"outcome": []}]"#, ["t.json: $.expect[0].outcome: the list is empty"]),
        (#"[{"playerError": {"kind": "fragLoadError", "code": "503"}}]"#, ["t.json: $.expect[0].playerError.code: expected an integer, got a string"]),
        (#"[{"playerError": {"knd": "x"}}]"#,
         [#"t.json: $.expect[0].playerError.knd: unknown key "knd" (did you mean "kind"?)"#]),
        (#"[{"playerError": {}}]"#, [#"t.json: $.expect[0].playerError: give "kind", "code" or "fatal" (or use true for any error)"#]),
        (#"[{"playerError": ""}]"#, ["t.json: $.expect[0].playerError: must not be empty"]),
        (#"[{"playerError": 503}]"#,
         [#"t.json: $.expect[0].playerError: "playerError" takes an error kind ("fragLoadError"), {"kind", "code", "fatal"} or true, got an integer"#]),
        (#"[{"log": "HTTP error (503"}]"#, [#"t.json: $.expect[0].log: invalid regular expression "HTTP error (503""#]),
        (#"[{"logNot": "["}]"#, [#"t.json: $.expect[0].logNot: invalid regular expression "[""#]),
        (#"[{"log": 3}]"#, ["t.json: $.expect[0].log: expected a string, got an integer"]),
        (#"[{"outcome": "played", "players": ["hls.js"]}]"#,
         [#"t.json: $.expect[0].players[0]: unknown player "hls.js" (did you mean "hlsjs"?); expected one of "ffmpeg", "gstreamer", "gstreamer-legacy", "vlc", "mpv", "hlsjs", "vhs", "command""#]),
        (#"[{"outcome": "played", "players": "avplayer"}]"#,
         [#"t.json: $.expect[0].players: unknown player "avplayer"; expected one of "ffmpeg", "gstreamer", "gstreamer-legacy", "vlc", "mpv", "hlsjs", "vhs", "command""#]),
        (#"[{"outcome": "played", "players": ["ffmpeg", "ffmpeg"]}]"#, [#"t.json: $.expect[0].players[1]: duplicate player "ffmpeg""#]),
        (#"[{"outcome": "played", "players": []}]"#, ["t.json: $.expect[0].players: the list is empty"]),
        (#"[{"outcome": "played", "note": ""}]"#, ["t.json: $.expect[0].note: must not be empty"]),
        (#"[{"anyOf": {"retried": {"atLeast": 1}}}]"#, [#"t.json: $.expect[0].anyOf: "anyOf" takes a list of checks, got an object"#]),
        (#"[{"anyOf": []}]"#, ["t.json: $.expect[0].anyOf: the list is empty"]),
        (#"[{"anyOf": [{"retried": {"atLeast": 1}, "players": ["hlsjs"]}, {"swichedDown": {}}]}]"#,
         [#"t.json: $.expect[0].anyOf[0].players: "players" applies to the whole expectation: put it on the item itself"#,
          #"t.json: $.expect[0].anyOf[1].swichedDown: unknown key "swichedDown" (did you mean "switchedDown"?)"#]),
        (#"[{"anyOf": [{"outcome": "played", "log": "x"}]}]"#,
         [#"t.json: $.expect[0].anyOf[0]: "outcome" and "log" cannot be combined (one check per expectation; use "anyOf" for alternatives, or one item per check)"#]),
        (#"[{"not": true}]"#, [#"t.json: $.expect[0].not: "not" takes one check, e.g. {"fetchedToTheEnd": true}, got a boolean"#]),
        (#"[{"not": {"fetchedToTheEnd": true, "note": "x"}}]"#,
         [#"t.json: $.expect[0].not.note: "note" applies to the whole expectation: put it on the item itself"#]),
        // The adaptation checks (issue 36).
        (#"[{"switchedDown": {"within": "5s", "after": "linkRecovered"}}]"#,
         [#"t.json: $.expect[0].switchedDown.after: "linkRecovered" times an up-switch; "switchedDown" is timed from "firstFault" or "linkBelowVariant""#]),
        (#"[{"switchedUp": {"after": "linkBelowVariant"}}]"#,
         [#"t.json: $.expect[0].switchedUp.after: "linkBelowVariant" times a down-switch; "switchedUp" is timed from "firstFault" or "linkRecovered""#]),
        (#"[{"switchedDown": {"after": "linkBelow"}}]"#,
         [#"t.json: $.expect[0].switchedDown.after: unknown anchor "linkBelow" (did you mean "linkBelowVariant"?); expected one of "firstFault", "linkBelowVariant""#]),
        (#"[{"switchedUp": {"aftr": "linkRecovered"}}]"#, [#"t.json: $.expect[0].switchedUp.aftr: unknown key "aftr" (did you mean "after"?)"#]),
        (#"[{"switchedDown": "5s"}]"#,
         [#"t.json: $.expect[0].switchedDown: "switchedDown" takes {"within": "10s"}, {"within": "10s", "after": "linkBelowVariant"}, {} or true, got a string"#]),
        (#"[{"switches": 4}]"#,
         [#"t.json: $.expect[0].switches: "switches" takes {"atMost": N} or {"atMost": N, "perMinute": true}, got an integer"#]),
        (#"[{"switches": {"atMost": 1.5}}]"#,
         [#"t.json: $.expect[0].switches.atMost: atMost counts switches over the run: a whole number, got 1.5 (for switches a minute add "perMinute": true)"#]),
        (#"[{"switches": {"atMost": -1}}]"#, ["t.json: $.expect[0].switches.atMost: atMost must be at least 0, got -1"]),
        (#"[{"switches": {"atMost": -1, "perMinute": true}}]"#,
         ["t.json: $.expect[0].switches.atMost: atMost must be between 0 and 60 switches a minute, got -1"]),
        (#"[{"switches": {"atMost": 600, "perMinute": true}}]"#,
         ["t.json: $.expect[0].switches.atMost: atMost must be between 0 and 60 switches a minute, got 600"]),
        (#"[{"switches": {"atMost": "2", "perMinute": true}}]"#,
         ["t.json: $.expect[0].switches.atMost: expected a number of switches a minute, got a string"]),
        (#"[{"switches": {"perMinute": true}}]"#, [#"t.json: $.expect[0].switches: give "atLeast", "atMost" or both"#]),
        (#"[{"switches": {"atMost": 2, "perMinute": "yes"}}]"#, ["t.json: $.expect[0].switches.perMinute: expected true or false, got a string"]),
        (#"[{"switches": {"atLeast": 3, "atMost": 1}}]"#, ["t.json: $.expect[0].switches: atLeast (3) is greater than atMost (1)"]),
        (#"[{"switches": {"atMots": 3}}]"#, [#"t.json: $.expect[0].switches.atMots: unknown key "atMots" (did you mean "atMost"?)"#]),
        (#"[{"stalls": {"atMost": -2}}]"#, ["t.json: $.expect[0].stalls.atMost: atMost must be at least 0, got -2"]),
        (#"[{"stalls": 0}]"#, [#"t.json: $.expect[0].stalls: "stalls" takes {"atLeast": N, "atMost": M}, got an integer"#]),
        (#"[{"utilisation": {"atLeast": 0.7}}]"#,
         [#"t.json: $.expect[0].utilisation.atLeast: atLeast is a percentage written as a string: write "70%", got 0.7"#]),
        (#"[{"utilisation": {"atLeast": 70}}]"#,
         [#"t.json: $.expect[0].utilisation.atLeast: atLeast is a percentage written as a string: write "70%", got 70"#]),
        (#"[{"utilisation": {"atLeast": "150%"}}]"#, [#"t.json: $.expect[0].utilisation.atLeast: atLeast must be between 0% and 100%, got "150%""#]),
        (#"[{"utilisation": {"atLeast": "-5%"}}]"#,
         [#"t.json: $.expect[0].utilisation.atLeast: invalid percentage "-5%" (write a number and %: "70%", "72.5%")"#]),
        (#"[{"utilisation": {"atLeast": "70"}}]"#,
         [#"t.json: $.expect[0].utilisation.atLeast: invalid percentage "70" (write a number and %: "70%", "72.5%")"#]),
        (#"[{"utilisation": {"atLeast": "80%", "atMost": "70%"}}]"#, ["t.json: $.expect[0].utilisation: atLeast (80%) is greater than atMost (70%)"]),
        (#"[{"utilisation": "70%"}]"#,
         [#"t.json: $.expect[0].utilisation: "utilisation" takes {"atLeast": "70%"}, {"atMost": "95%"} or both, got a string"#]),
        (#"[{"utilisation": {}}]"#, [#"t.json: $.expect[0].utilisation: give "atLeast", "atMost" or both"#]),
        (#"[{"utilization": {"atLeast": "70%"}}]"#,
         [#"t.json: $.expect[0].utilization: unknown key "utilization" (did you mean "utilisation"?)"#]),
        (#"[{"overshoot": {"atMost": "-1s"}}]"#,
         [#"t.json: $.expect[0].overshoot.atMost: a duration cannot be negative: "-1s""#]),
        (#"[{"overshoot": {"atMost": 5}}]"#, ["t.json: $.expect[0].overshoot.atMost: expected a string, got an integer"]),
        (#"[{"overshoot": {}}]"#, [#"t.json: $.expect[0].overshoot: give "atMost" (a duration such as "5s")"#]),
        (#"[{"overshoot": {"atLeast": "5s"}}]"#, [#"t.json: $.expect[0].overshoot.atLeast: unknown key "atLeast" (did you mean "atMost"?)"#]),
        (#"[{"overshoot": "5s"}]"#, [#"t.json: $.expect[0].overshoot: "overshoot" takes {"atMost": "5s"}, got a string"#]),
        (#"[{"not": {}}]"#, ["t.json: $.expect[0].not: no check given (use one of switchedDown, switchedUp, retried, failedOver, fetchedToTheEnd, stopped, reloadCadence, neverRequested, skipped, movedPathway, steeringReloads, outcome, playerError, log, logNot, bufferNeverBelow, startupWithin, cmcdValid, anyOf, not, switches, stalls, utilisation, overshoot)"]),
    ]

    @Test(arguments: problemCases.indices)
    func reportsExactProblem(_ index: Int) {
        let (expect, expected) = Self.problemCases[index]
        #expect(problems(Self.json(expect)) == expected, "\(expect)")
    }

    @Test func aCheckAtTheTopLevelBelongsInExpect() {
        let json = #"{"name": "t", "retried": {"atLeast": 1}, "rules": [{"id": "r", "match": {}, "action": {"delay": "1s"}}]}"#
        #expect(problems(json) == [#"t.json: $.retried: unknown key "retried" ("retried" belongs in "expect[]")"#])
    }

    @Test func problemsInRulesAndExpectationsAreReportedTogether() {
        let json = #"{"name": "t", "expect": [{"outcome": "won"}], "rules": [{"id": "r", "match": {"msm": 1}, "action": {"delay": "1s"}}]}"#
        #expect(problems(json) == [
            #"t.json: $.rules[0].match.msm: unknown key "msm" (did you mean "msn"?)"#,
            #"t.json: $.expect[0].outcome: unknown outcome "won"; expected one of "played", "failed", "stalled", "timedOut""#,
        ])
    }
}
