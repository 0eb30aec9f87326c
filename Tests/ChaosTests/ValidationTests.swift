import Testing
@testable import Chaos
import SpecReading

/// Every validation problem, with its exact message.
@Suite struct ValidationTests {
    static let cases: [(json: String, expected: [String])] = [
        // document level
        ("{", ["t.json: $: invalid JSON at line 1, column 2: expected a key in double quotes"]),
        ("{\"name\": \"x\",\n \"rules\": [1,]}", ["t.json: $: invalid JSON at line 2, column 14: unexpected character ']'"]),
        ("[]", ["t.json: $: expected an object, got a list"]),
        (#"{"rules": [{"id": "a", "match": {}, "action": {"delay": "1s"}}]}"#, [#"t.json: $: missing required key "name""#]),
        (#"{"name": "x"}"#, [#"t.json: $: missing required key "rules""#]),
        (#"{"name": "x", "rules": []}"#, ["t.json: $.rules: no rules (a scenario needs at least one, or a \"link\")"]),
        (#"{"name": "x", "rules": {}}"#, ["t.json: $.rules: expected a list of rules, got an object"]),
        (#"{"name": "", "rules": [{"id": "a", "match": {}, "action": {"delay": "1s"}}]}"#, ["t.json: $.name: must not be empty"]),
        (#"{"name": "x", "nmae": 1, "rules": [{"id": "a", "match": {}, "action": {"delay": "1s"}}]}"#,
         [#"t.json: $.nmae: unknown key "nmae" (did you mean "name"?)"#]),
        (#"{"name": "x", "name": "y", "rules": [{"id": "a", "match": {}, "action": {"delay": "1s"}}]}"#,
         [#"t.json: $.name: duplicate key "name""#]),
        (#"{"name": "x", "expected": {"hls.js": "x"}, "rules": [{"id": "a", "match": {}, "action": {"delay": "1s"}}]}"#,
         [#"t.json: $.expected["hls.js"]: unknown key "hls.js" (did you mean "hlsjs"?)"#]),
        (#"{"name": "x", "msn": 3, "rules": [{"id": "a", "match": {}, "action": {"delay": "1s"}}]}"#,
         [#"t.json: $.msn: unknown key "msn" ("msn" belongs in "rules[].match")"#]),
        // rules
        (#"{"name": "x", "rules": [{"match": {}, "action": {"delay": "1s"}}]}"#, [#"t.json: $.rules[0]: missing required key "id""#]),
        (#"{"name": "x", "rules": [{"id": "a", "action": {"delay": "1s"}}]}"#, [#"t.json: $.rules[0]: missing required key "match""#]),
        (#"{"name": "x", "rules": [{"id": "a", "match": {}}]}"#, [#"t.json: $.rules[0]: missing required key "action""#]),
        (#"{"name": "x", "rules": [{"id": "a", "match": {}, "action": {"delay": "1s"}}, {"id": "a", "match": {}, "action": {"delay": "1s"}}]}"#,
         [#"t.json: $.rules[1].id: duplicate rule id "a" (first used at $.rules[0].id)"#]),
        (#"{"name": "x", "rules": [{"id": "a", "match": {}, "status": 503, "action": {"delay": "1s"}}]}"#,
         [#"t.json: $.rules[0].status: unknown key "status" ("status" belongs in "action")"#]),
        // match
        (scenarioJSON(match: #"{"msm": 3}"#, action: #"{"delay": "1s"}"#),
         [#"t.json: $.rules[0].match.msm: unknown key "msm" (did you mean "msn"?)"#]),
        (scenarioJSON(match: #"{"MSN": 3}"#, action: #"{"delay": "1s"}"#),
         [#"t.json: $.rules[0].match.MSN: unknown key "MSN" (did you mean "msn"?)"#]),
        (scenarioJSON(match: #"{"varaint": "highest"}"#, action: #"{"delay": "1s"}"#),
         [#"t.json: $.rules[0].match.varaint: unknown key "varaint" (did you mean "variant"?)"#]),
        (scenarioJSON(match: #"{"zzzzzz": 1}"#, action: #"{"delay": "1s"}"#),
         [#"t.json: $.rules[0].match.zzzzzz: unknown key "zzzzzz" (expected one of kind, variant, rendition, msn, part, index, time, requests, after, for, probability, seed, copy, pathway, session, method, range, blocking, cmcd)"#]),
        (scenarioJSON(match: #"{"status": 5}"#, action: #"{"delay": "1s"}"#),
         [#"t.json: $.rules[0].match.status: unknown key "status" ("status" belongs in "action")"#]),
        (scenarioJSON(match: #"{"kind": "segmnt"}"#, action: #"{"delay": "1s"}"#),
         [#"t.json: $.rules[0].match.kind: unknown kind "segmnt" (did you mean "segment"?); expected one of "master", "media", "segment", "part", "init", "key", "sessionData", "steering", "any""#]),
        (scenarioJSON(match: #"{"kind": []}"#, action: #"{"delay": "1s"}"#), ["t.json: $.rules[0].match.kind: the list is empty"]),
        (scenarioJSON(match: #"{"kind": ["media", 3]}"#, action: #"{"delay": "1s"}"#),
         ["t.json: $.rules[0].match.kind[1]: expected a string, got an integer"]),
        (scenarioJSON(match: #"{"variant": "top"}"#, action: #"{"delay": "1s"}"#),
         [#"t.json: $.rules[0].match.variant: unknown variant selector "top"; expected one of "highest", "lowest""#]),
        (scenarioJSON(match: #"{"variant": {}}"#, action: #"{"delay": "1s"}"#),
         [#"t.json: $.rules[0].match.variant: empty variant selector (give index, bandwidth, resolution or name, or use "highest"/"lowest")"#]),
        (scenarioJSON(match: #"{"variant": {"index": -1}}"#, action: #"{"delay": "1s"}"#),
         ["t.json: $.rules[0].match.variant.index: index must be at least 0, got -1"]),
        (scenarioJSON(match: #"{"variant": {"index": 1.5}}"#, action: #"{"delay": "1s"}"#),
         ["t.json: $.rules[0].match.variant.index: expected an integer, got a number"]),
        (scenarioJSON(match: #"{"variant": {"bandwidth": {"min": 9, "max": 1}}}"#, action: #"{"delay": "1s"}"#),
         ["t.json: $.rules[0].match.variant.bandwidth: min (9) is greater than max (1)"]),
        (scenarioJSON(match: #"{"variant": {"resolution": "640*360"}}"#, action: #"{"delay": "1s"}"#),
         [#"t.json: $.rules[0].match.variant.resolution: invalid resolution "640*360" (use WIDTHxHEIGHT, e.g. "640x360")"#]),
        (scenarioJSON(match: #"{"rendition": {"type": "audio"}}"#, action: #"{"delay": "1s"}"#),
         [#"t.json: $.rules[0].match.rendition.type: unknown rendition type "audio" (did you mean "AUDIO"?); expected one of "AUDIO", "SUBTITLES", "CLOSED-CAPTIONS", "VIDEO""#]),
        (scenarioJSON(match: #"{"rendition": {"lang": "fr"}}"#, action: #"{"delay": "1s"}"#),
         [#"t.json: $.rules[0].match.rendition.lang: unknown key "lang" (did you mean "language"?)"#, "t.json: $.rules[0].match.rendition: empty rendition selector (give type, language or name)"]),
        (scenarioJSON(match: #"{"msn": "3"}"#, action: #"{"delay": "1s"}"#),
         [#"t.json: $.rules[0].match.msn: expected msn as an integer, {"from", "to"}, {"every"} or a list, got a string"#]),
        (scenarioJSON(match: #"{"msn": {"from": 5, "to": 2}}"#, action: #"{"delay": "1s"}"#),
         ["t.json: $.rules[0].match.msn: from (5) is greater than to (2)"]),
        (scenarioJSON(match: #"{"msn": {"every": 0}}"#, action: #"{"delay": "1s"}"#),
         ["t.json: $.rules[0].match.msn.every: every must be at least 1, got 0"]),
        (scenarioJSON(match: #"{"msn": {"every": 2, "from": 1}}"#, action: #"{"delay": "1s"}"#),
         [#"t.json: $.rules[0].match.msn: "every" cannot be combined with "from"/"to""#]),
        (scenarioJSON(match: #"{"index": [1, {"form": 2}]}"#, action: #"{"delay": "1s"}"#),
         [#"t.json: $.rules[0].match.index[1].form: unknown key "form" (did you mean "from"?)"#, #"t.json: $.rules[0].match.index[1]: give "from"/"to" or "every""#]),
        (scenarioJSON(match: #"{"time": {"from": "40s", "to": "30s"}}"#, action: #"{"delay": "1s"}"#),
         ["t.json: $.rules[0].match.time: from (40s) must be before to (30s)"]),
        (scenarioJSON(match: #"{"time": {"from": 30}}"#, action: #"{"delay": "1s"}"#),
         ["t.json: $.rules[0].match.time.from: expected a string, got an integer"]),
        (scenarioJSON(match: #"{"requests": {"from": 0}}"#, action: #"{"delay": "1s"}"#),
         ["t.json: $.rules[0].match.requests.from: from must be at least 1, got 0"]),
        (scenarioJSON(match: #"{"after": "soon"}"#, action: #"{"delay": "1s"}"#),
         [#"t.json: $.rules[0].match.after: invalid duration "soon" (use a number and ms, s, m or h: "500ms", "2s", "1.5s", "1m")"#]),
        (scenarioJSON(match: #"{"probability": 1.5}"#, action: #"{"delay": "1s"}"#),
         ["t.json: $.rules[0].match.probability: probability must be between 0 and 1, got 1.5"]),
        (scenarioJSON(match: #"{"probability": "half"}"#, action: #"{"delay": "1s"}"#),
         ["t.json: $.rules[0].match.probability: expected a number between 0 and 1, got a string"]),
        (scenarioJSON(match: #"{"seed": 3}"#, action: #"{"delay": "1s"}"#),
         [#"t.json: $.rules[0].match.seed: "seed" has no effect without "probability""#]),
        (scenarioJSON(match: #"{"probability": 0.5, "seed": -3}"#, action: #"{"delay": "1s"}"#),
         ["t.json: $.rules[0].match.seed: seed must be between 0 and 18446744073709551615, got -3"]),
        (scenarioJSON(match: #"{"copy": "secondary"}"#, action: #"{"delay": "1s"}"#),
         [#"t.json: $.rules[0].match.copy: unknown copy "secondary"; expected one of "primary", "backup""#]),
        (scenarioJSON(match: #"{"range": "yes"}"#, action: #"{"delay": "1s"}"#),
         ["t.json: $.rules[0].match.range: expected true or false, got a string"]),
        // action
        (scenarioJSON(action: "{}"),
         [#"t.json: $.rules[0].action: no action given (use "delay", a wire action such as "status" or a playlist action such as "gap")"#]),
        (scenarioJSON(action: #"{"status": 503, "hang": true}"#),
         [#"t.json: $.rules[0].action: "status" and "hang" cannot be combined (one wire action per rule; only "delay" combines with others)"#]),
        (scenarioJSON(action: #"{"status": 503, "gap": true}"#),
         [#"t.json: $.rules[0].action: "status" (wire) and "gap" (playlist) cannot be combined; use two rules"#]),
        (scenarioJSON(action: #"{"gap": true, "remove": true}"#), [#"t.json: $.rules[0].action: "gap" and "remove" cannot be combined"#]),
        (scenarioJSON(action: #"{"freeze": true, "lag": "5s"}"#), [#"t.json: $.rules[0].action: "freeze" and "lag" cannot be combined"#]),
        (scenarioJSON(action: #"{"headers": {"A": "b"}}"#), [#"t.json: $.rules[0].action.headers: "headers" needs "status" in the same action"#]),
        (scenarioJSON(action: #"{"status": 700}"#), ["t.json: $.rules[0].action.status: status must be between 100 and 599, got 700"]),
        (scenarioJSON(action: #"{"status": "503"}"#), ["t.json: $.rules[0].action.status: expected an integer, got a string"]),
        (scenarioJSON(action: #"{"status": 401, "headers": {"WWW-Authenticate": 1}}"#),
         [#"t.json: $.rules[0].action.headers["WWW-Authenticate"]: expected a string, got an integer"#]),
        (scenarioJSON(action: #"{"status": 401, "headers": {"A": "1", "a": "2"}}"#),
         [#"t.json: $.rules[0].action.headers.a: duplicate header "a""#]),
        (scenarioJSON(action: #"{"status": 401, "headers": {"A": "x\ny"}}"#),
         ["t.json: $.rules[0].action.headers.A: a header value is visible characters, spaces and tabs (no line break, NUL or other control character, no space or tab at either end)"]),
        (scenarioJSON(action: #"{"status": 401, "headers": {"A": "bell\u0007"}}"#),
         ["t.json: $.rules[0].action.headers.A: a header value is visible characters, spaces and tabs (no line break, NUL or other control character, no space or tab at either end)"]),
        (scenarioJSON(action: #"{"status": 401, "headers": {"X-Why(not)": "1"}}"#),
         [#"t.json: $.rules[0].action.headers["X-Why(not)"]: invalid header name "X-Why(not)": a name is letters, digits and !#$%&'*+-.^_`|~"#]),
        (scenarioJSON(action: #"{"contentType": "text/plain\u0000"}"#),
         ["t.json: $.rules[0].action.contentType: contentType is a header value: visible characters, spaces and tabs (no line break, NUL or other control character, no space or tab at either end)"]),
        (#"{"name": "two\nlines", "rules": [{"id": "a", "match": {}, "action": {"delay": "1s"}}]}"#,
         ["t.json: $.name: must not contain control characters (line breaks, tabs, NUL)"]),
        (#"{"name": "x", "rules": [{"id": "a\tb", "match": {}, "action": {"delay": "1s"}}]}"#,
         ["t.json: $.rules[0].id: must not contain control characters (line breaks, tabs, NUL)"]),
        (scenarioJSON(action: #"{"delay": "2 s"}"#),
         [#"t.json: $.rules[0].action.delay: invalid duration "2 s" (use a number and ms, s, m or h: "500ms", "2s", "1.5s", "1m")"#]),
        (scenarioJSON(action: #"{"hang": false}"#),
         [#"t.json: $.rules[0].action.hang: "hang" takes true (forever) or a duration such as "30s", got a boolean"#]),
        (scenarioJSON(action: #"{"throttle": "fast"}"#),
         [#"t.json: $.rules[0].action.throttle: invalid rate "fast" (use a number and kbps, Mbps, Gbps, B/s, KB/s or MB/s: "800kbps", "2Mbps", "64KB/s")"#]),
        (scenarioJSON(action: #"{"throttle": "0kbps"}"#),
         [#"t.json: $.rules[0].action.throttle: the rate "0kbps" is less than 1 B/s (use a rate above 0, such as "800kbps")"#]),
        (scenarioJSON(action: #"{"throttle": "3bps"}"#),
         [#"t.json: $.rules[0].action.throttle: the rate "3bps" is less than 1 B/s (use a rate above 0, such as "800kbps")"#]),
        (scenarioJSON(action: #"{"throttle": "200Gbps"}"#),
         ["t.json: $.rules[0].action.throttle: the rate 200Gbps is above the limit of 100Gbps (a unit too many?)"]),
        (scenarioJSON(action: #"{"stall": {"afterBytes": 10}}"#), [#"t.json: $.rules[0].action.stall: missing required key "for""#]),
        (scenarioJSON(action: #"{"reset": "later"}"#),
         [#"t.json: $.rules[0].action.reset: unknown reset point "later"; expected one of "before-headers""#]),
        (scenarioJSON(action: #"{"reset": 5}"#),
         [#"t.json: $.rules[0].action.reset: "reset" takes "before-headers" or {"afterBytes": N}, got an integer"#]),
        (scenarioJSON(action: #"{"truncate": {"afterBytes": 1, "fraction": 0.5}}"#),
         [#"t.json: $.rules[0].action.truncate: give either "afterBytes" or "fraction", not both"#]),
        (scenarioJSON(action: #"{"truncate": {"fraction": 1}}"#),
         ["t.json: $.rules[0].action.truncate.fraction: fraction must be greater than 0 and less than 1, got 1"]),
        (scenarioJSON(action: #"{"truncate": {}}"#), [#"t.json: $.rules[0].action.truncate: give "afterBytes" or "fraction""#]),
        (scenarioJSON(action: #"{"corrupt": {"bytes": 0}}"#), ["t.json: $.rules[0].action.corrupt.bytes: bytes must be between 1 and 1000000, got 0"]),
        (scenarioJSON(action: #"{"corrupt": {"byte": 3}}"#),
         [#"t.json: $.rules[0].action.corrupt.byte: unknown key "byte" (did you mean "bytes"?)"#, #"t.json: $.rules[0].action.corrupt: missing required key "bytes""#]),
        (scenarioJSON(action: #"{"redirect": {"status": 200}}"#),
         ["t.json: $.rules[0].action.redirect.status: redirect status must be one of 301, 302, 303, 307, 308, got 200"]),
        (scenarioJSON(action: #"{"redirect": {"hops": 3, "loop": true}}"#),
         [#"t.json: $.rules[0].action.redirect.hops: "hops" has no effect with "loop": true"#]),
        (scenarioJSON(action: #"{"rejectRanges": false}"#),
         [#"t.json: $.rules[0].action.rejectRanges: "rejectRanges" takes true, got false (remove the key instead)"#]),
        (scenarioJSON(match: #"{"range": false}"#, action: #"{"rejectRanges": true}"#),
         [#"t.json: $.rules[0].action.rejectRanges: "rejectRanges" only affects Range requests, but match.range is false"#]),
        (scenarioJSON(action: #"{"gap": {"status": 500}}"#), ["t.json: $.rules[0].action.gap.status: gap status must be 404 or 410, got 500"]),
        (scenarioJSON(action: #"{"sequenceShift": 0}"#), ["t.json: $.rules[0].action.sequenceShift: sequenceShift of 0 changes nothing"]),
        (scenarioJSON(action: #"{"targetDuration": 0}"#),
         ["t.json: $.rules[0].action.targetDuration: targetDuration must be between 1 and 86400, got 0"]),
        (scenarioJSON(action: #"{"endList": "drop"}"#),
         [#"t.json: $.rules[0].action.endList: unknown endList change "drop"; expected one of "add", "remove""#]),
        (scenarioJSON(action: #"{"malform": "no-headr"}"#),
         [#"t.json: $.rules[0].action.malform: unknown malformation "no-headr" (did you mean "no-header"?); expected one of "no-header", "garbage-line", "bad-attribute", "extinf-over-target", "duplicate-version", "cut""#]),
        (scenarioJSON(action: #"{"key": "wrong"}"#),
         [#"t.json: $.rules[0].action.key: unknown key damage "wrong" (did you mean "wrong-length"?); expected one of "wrong-length", "wrong-bytes""#]),
        (scenarioJSON(action: #"{"stripVariants": []}"#), ["t.json: $.rules[0].action.stripVariants: the list is empty"]),
        (scenarioJSON(action: #"{"stsatus": 503}"#), [#"t.json: $.rules[0].action.stsatus: unknown key "stsatus" (did you mean "status"?)"#]),
        (scenarioJSON(action: #"{"msn": 3}"#), [#"t.json: $.rules[0].action.msn: unknown key "msn" ("msn" belongs in "match")"#]),
        (scenarioJSON(match: #"{"kind": "segment"}"#, action: #"{"stripVariants": "highest"}"#),
         [#"t.json: $.rules[0].action.stripVariants: "stripVariants" applies to master requests, but match.kind allows only segment"#]),
        (scenarioJSON(match: #"{"kind": "master"}"#, action: #"{"gap": true}"#),
         [#"t.json: $.rules[0].action.gap: "gap" applies to media or segment requests, but match.kind allows only master"#]),
        (scenarioJSON(match: #"{"kind": "segment", "part": 2}"#, action: #"{"status": 404}"#),
         [#"t.json: $.rules[0].match.part: "part" selects LL-HLS parts, but match.kind does not allow "part" (add it, or drop "part")"#]),
        (scenarioJSON(match: #"{"kind": "part", "blocking": true}"#, action: #"{"status": 503}"#),
         [#"t.json: $.rules[0].match.blocking: only media playlist requests are blocking reloads, but match.kind does not allow "media""#]),
        (scenarioJSON(match: #"{"kind": "segment"}"#, action: #"{"ignoreDirectives": true}"#),
         [#"t.json: $.rules[0].action.ignoreDirectives: "ignoreDirectives" applies to media requests, but match.kind allows only segment"#]),
        // content steering
        (scenarioJSON(match: #"{"pathway": "cdn a"}"#, action: #"{"status": 503}"#),
         [#"t.json: $.rules[0].match.pathway: "cdn a" is no PATHWAY-ID: up to 64 letters, digits, "-", "." and "_" (rfc8216bis §4.4.6.2)"#]),
        (scenarioJSON(match: #"{"pathway": []}"#, action: #"{"status": 503}"#),
         [#"t.json: $.rules[0].match.pathway: the list is empty"#]),
        (scenarioJSON(match: #"{"kind": ["master", "steering"], "pathway": "cdn-b"}"#, action: #"{"status": 503}"#),
         [#"t.json: $.rules[0].match.pathway: "pathway" selects the resources of a content-steering pathway's variants and renditions (media, segment, part, init, key), but match.kind allows none of them"#]),
        (scenarioJSON(match: #"{"kind": "steering"}"#, action: #"{"steering": {}}"#),
         [#"t.json: $.rules[0].action.steering: steering damage needs at least one of "ttl", "priority", "reloadURI", "malformed""#]),
        (scenarioJSON(match: #"{"kind": "steering"}"#, action: #"{"steering": {"ttl": -1}}"#),
         [#"t.json: $.rules[0].action.steering.ttl: ttl must be between 0 and 86400, got -1"#]),
        (scenarioJSON(match: #"{"kind": "steering"}"#, action: #"{"steering": {"priority": ["cdn-a", "bad/id"]}}"#),
         [#"t.json: $.rules[0].action.steering.priority[1]: "bad/id" is no PATHWAY-ID: up to 64 letters, digits, "-", "." and "_" (rfc8216bis §4.4.6.2)"#]),
        (scenarioJSON(match: #"{"kind": "steering"}"#, action: #"{"steering": {"malformed": false}}"#),
         [#"t.json: $.rules[0].action.steering.malformed: "malformed" takes true, got false (remove the key instead)"#]),
        (scenarioJSON(match: #"{"kind": "steering"}"#, action: #"{"steering": {"tll": 1}}"#),
         [#"t.json: $.rules[0].action.steering.tll: unknown key "tll" (did you mean "ttl"?)"#]),
        (scenarioJSON(match: #"{"kind": "media"}"#, action: #"{"steering": {"ttl": 1}}"#),
         [#"t.json: $.rules[0].action.steering: "steering" applies to steering requests, but match.kind allows only media"#]),
        (scenarioJSON(match: #"{"requests": 1}"#, action: #"{"gap": true}"#),
         [#"t.json: $.rules[0].match.requests: "requests" cannot be used with "gap" (segments are selected the same way on every reload; use msn, index, time or probability)"#]),
    ]

    @Test(arguments: cases.indices)
    func reportsExactProblem(_ index: Int) {
        let (json, expected) = Self.cases[index]
        #expect(problems(json) == expected, "\(json)")
    }

    @Test func reportsEveryProblemInOneFile() {
        let json = """
        { "name": "x", "rules": [
          { "id": "a", "match": { "kind": "segmnt", "msm": 3, "probability": 2 },
            "action": { "status": 700, "hang": "forever" } },
          { "id": "a", "match": {}, "action": {} }
        ]}
        """
        let lines = problems(json)
        #expect(lines.count == 8)
        #expect(lines.contains(#"t.json: $.rules[0].match.msm: unknown key "msm" (did you mean "msn"?)"#))
        #expect(lines.contains(#"t.json: $.rules[0].action.hang: invalid duration "forever" (use a number and ms, s, m or h: "500ms", "2s", "1.5s", "1m")"#))
        #expect(lines.contains(#"t.json: $.rules[1].id: duplicate rule id "a" (first used at $.rules[0].id)"#))
    }

    @Test func suggestions() {
        #expect(Suggestions.nearest(to: "msm", in: RuleKeys.match) == "msn")
        #expect(Suggestions.nearest(to: "mns", in: RuleKeys.match) == "msn")
        #expect(Suggestions.nearest(to: "probabilty", in: RuleKeys.match) == "probability")
        #expect(Suggestions.nearest(to: "sesion", in: RuleKeys.match) == "session")
        #expect(Suggestions.nearest(to: "throtle", in: RuleKeys.action) == "throttle")
        #expect(Suggestions.nearest(to: "backupVariant", in: RuleKeys.action) == "backupVariants")
        #expect(Suggestions.nearest(to: "elephant", in: RuleKeys.match) == nil)
        #expect(Suggestions.editDistance("kitten", "sitting") == 3)
        #expect(Suggestions.editDistance("ab", "ba") == 1)
    }

    @Test func unreadableFile() {
        #expect(throws: RuleFileError(problems: [RuleProblem(file: "/no/such/file.json", path: "$", message: "no such file")])) {
            try RuleDecoder.decodeFile(atPath: "/no/such/file.json")
        }
    }
}
