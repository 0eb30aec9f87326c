import Testing
@testable import Chaos

@Suite struct DecodingTests {
    @Test func fullScenarioDecodes() throws {
        let json = """
        {
          "name": "segment-503",
          "description": "Variant 1 answers 503 for media sequence 3.",
          "reference": "error-paths §1: 503",
          "expected": { "avplayer": "retries", "hlsjs": "fragLoadError", "vhs": "retries", "exoplayer": "excludes" },
          "rules": [
            { "id": "v1-msn3",
              "match": { "kind": ["segment", "part"], "variant": { "index": 1 }, "msn": 3, "part": {"from": 2} },
              "action": { "status": 503, "headers": {"Retry-After": "2"}, "delay": "1.5s" } },
            { "id": "all",
              "match": { "kind": ["media", "master"], "variant": "highest", "rendition": {"type": "AUDIO", "language": "fr"},
                         "msn": [1, {"from": 4, "to": 6}, {"every": 3}], "index": {"from": 2},
                         "time": {"from": "30s", "to": "40s"}, "requests": {"from": 1, "to": 3},
                         "after": "2s", "for": "1m", "probability": 0.25, "seed": 42, "copy": "backup",
                         "session": "tv-*", "method": "get", "range": true, "blocking": false },
              "action": { "freeze": true, "sequenceShift": -2 } }
          ]
        }
        """
        let scenario = try decode(json)
        #expect(scenario.name == "segment-503")
        #expect(scenario.reference == "error-paths §1: 503")
        #expect(scenario.expected["hlsjs"] == "fragLoadError")
        #expect(scenario.expected["vhs"] == "retries")
        #expect(scenario.rules.map(\.id) == ["v1-msn3", "all"])
        let first = scenario.rules[0]
        #expect(first.match.kinds == [.segment, .part])
        #expect(first.match.part == .range(from: 2, to: nil))
        #expect(first.match.variant == .attributes(index: [1], bandwidth: nil, resolution: nil, name: nil))
        #expect(first.match.msn == .exactly(3))
        #expect(first.action.delay == .milliseconds(1500))
        #expect(first.action.wire == .status(code: 503, headers: [HTTPHeaderField(name: "Retry-After", value: "2")], body: nil))
        let second = scenario.rules[1].match
        #expect(second.kinds == [.media, .master])
        #expect(second.variant == .highest)
        #expect(second.rendition == RenditionSelector(type: "AUDIO", language: "fr"))
        #expect(second.msn == .anyOf([.exactly(1), .range(from: 4, to: 6), .every(3)]))
        #expect(second.index == .range(from: 2, to: nil))
        #expect(second.time == TimeWindow(from: .seconds(30), to: .seconds(40)))
        #expect(second.requests == RequestRange(from: 1, to: 3))
        #expect(second.after == .seconds(2))
        #expect(second.blocking == false && first.match.blocking == nil)
        #expect(second.duration == .seconds(60))
        #expect(second.probability == 0.25)
        #expect(second.seed == 42)
        #expect(second.copy == .backup)
        #expect(second.session == "tv-*")
        #expect(second.methods == ["GET"])
        #expect(second.range == true)
        #expect(scenario.rules[1].action.playlist == [.freeze, .sequenceShift(-2)])
    }

    @Test func everyActionDecodes() throws {
        let cases: [(String, Action)] = [
            (#"{"delay": "500ms"}"#, Action(delay: .milliseconds(500))),
            (#"{"status": 404, "body": "gone"}"#, Action(wire: .status(code: 404, headers: [], body: "gone"))),
            (#"{"hang": true}"#, Action(wire: .hang(nil))),
            (#"{"hang": "30s"}"#, Action(wire: .hang(.seconds(30)))),
            (#"{"throttle": "800kbps"}"#, Action(wire: .throttle(bytesPerSecond: 100_000))),
            (#"{"throttle": "2Mbps"}"#, Action(wire: .throttle(bytesPerSecond: 250_000))),
            (#"{"throttle": "64KB/s"}"#, Action(wire: .throttle(bytesPerSecond: 64_000))),
            (#"{"throttle": "64KiB/s"}"#, Action(wire: .throttle(bytesPerSecond: 65_536))),
            (#"{"stall": {"afterBytes": 1000, "for": "5s"}}"#, Action(wire: .stall(afterBytes: 1000, duration: .seconds(5)))),
            (#"{"reset": "before-headers"}"#, Action(wire: .reset(.beforeHeaders))),
            (#"{"reset": {"afterBytes": 20000}}"#, Action(wire: .reset(.afterBytes(20000)))),
            (#"{"truncate": {"afterBytes": 10}}"#, Action(wire: .truncate(.afterBytes(10)))),
            (#"{"truncate": {"fraction": 0.5}}"#, Action(wire: .truncate(.fraction(0.5)))),
            (#"{"corrupt": {"bytes": 16, "seed": 7}}"#, Action(wire: .corrupt(bytes: 16, seed: 7))),
            (#"{"corrupt": {"bytes": 16}}"#, Action(wire: .corrupt(bytes: 16, seed: 0))),
            (#"{"contentType": "text/html"}"#, Action(wire: .contentType("text/html"))),
            (#"{"redirect": {"status": 307, "hops": 3}}"#, Action(wire: .redirect(status: 307, hops: 3, loop: false))),
            (#"{"redirect": {"loop": true}}"#, Action(wire: .redirect(status: 302, hops: 1, loop: true))),
            (#"{"rejectRanges": true}"#, Action(wire: .rejectRanges)),
            (#"{"stripVariants": "highest"}"#, Action(playlist: [.stripVariants([.highest])])),
            (#"{"stripVariants": [{"index": 0}, "highest"]}"#,
             Action(playlist: [.stripVariants([.attributes(index: [0], bandwidth: nil, resolution: nil, name: nil), .highest])])),
            (#"{"stripRenditions": {"type": "AUDIO", "language": "fr"}}"#,
             Action(playlist: [.stripRenditions([RenditionSelector(type: "AUDIO", language: "fr")])])),
            (#"{"gap": true}"#, Action(playlist: [.gap(status: 404)])),
            (#"{"gap": {"status": 410}}"#, Action(playlist: [.gap(status: 410)])),
            (#"{"remove": true}"#, Action(playlist: [.remove])),
            (#"{"freeze": true}"#, Action(playlist: [.freeze])),
            (#"{"lag": "12s"}"#, Action(playlist: [.lag(.seconds(12))])),
            (#"{"sequenceShift": -3}"#, Action(playlist: [.sequenceShift(-3)])),
            (#"{"targetDuration": 4}"#, Action(playlist: [.targetDuration(4)])),
            (#"{"endList": "add"}"#, Action(playlist: [.endList(.add)])),
            (#"{"endList": "remove"}"#, Action(playlist: [.endList(.remove)])),
            (#"{"malform": "extinf-over-target"}"#, Action(playlist: [.malform(.extinfOverTarget)])),
            (#"{"sessionData": "malformed"}"#, Action(playlist: [.sessionData(.malformed)])),
            (#"{"key": "wrong-length"}"#, Action(playlist: [.key(.wrongLength)])),
            (#"{"key": "wrong-bytes"}"#, Action(playlist: [.key(.wrongBytes)])),
            (#"{"backupVariants": true}"#, Action(playlist: [.backupVariants])),
            (#"{"ignoreDirectives": true}"#, Action(playlist: [.ignoreDirectives])),
            (#"{"lowLatency": "skip-too-many"}"#, Action(playlist: [.lowLatency(.skipTooMany)])),
            (#"{"steering": {"ttl": 1}}"#, Action(playlist: [.steering(SteeringDamage(ttl: 1))])),
        ]
        for (json, expected) in cases {
            let decoded = try rule("{}", json).action
            #expect(decoded == expected, "\(json)")
        }
        // Every action key is exercised above.
        let covered = Set(cases.flatMap { json, _ in RuleKeys.action.filter { json.contains("\"\($0)\"") } })
        #expect(covered == Set(RuleKeys.action).subtracting(["headers"]))
    }

    /// The spellings themselves are `ValueText`'s (SpecReadingTests); here, what a rule makes of them.
    @Test func durationsAndRatesAsARuleReadsThem() throws {
        #expect(try rule("{}", #"{"delay": "562.5ms"}"#).action.delay == .microseconds(562_500))
        #expect(try rule("{}", #"{"delay": " 2s "}"#).action.delay == .seconds(2))
        for (text, bytes) in [("800kbps", 100_000), ("64KB/s", 64_000), ("1KiB/s", 1024), ("4bps", 1), ("12bps", 2), ("100Gbps", 12_500_000_000)] {
            #expect(try rule("{}", "{\"throttle\": \"\(text)\"}").action.wire == .throttle(bytesPerSecond: bytes), "\(text)")
        }
    }
}
