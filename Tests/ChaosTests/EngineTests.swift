import Testing
@testable import Chaos

@Suite struct EngineTests {
    @Test func windowOnTheSessionClock() throws {
        let engine = try makeEngine(#"{"id": "w", "match": {"after": "20s", "for": "30s"}, "action": {"status": 503}}"#)
        let clock = ManualChaosClock(.seconds(1000))
        var state = SessionState(sessionID: "s1")
        func hit() -> Bool { engine.plan(for: segment(1), state: &state, now: clock.now()).response != nil }
        #expect(!hit())                         // t = 0: the session starts here
        #expect(state.start == .seconds(1000))
        clock.advance(by: .milliseconds(19_999))
        #expect(!hit())
        clock.advance(by: .milliseconds(1))     // t = 20 s
        #expect(hit())
        clock.advance(by: .milliseconds(29_999)) // t = 49.999 s
        #expect(hit())
        clock.advance(by: .milliseconds(1))     // t = 50 s: closed
        #expect(!hit())
        #expect(state.sessionTime(at: clock.now()) == .seconds(50))
    }

    @Test func nthMatchingRequestPerSessionAndRule() throws {
        let engine = try makeEngine(
            #"{"id": "second-and-third", "match": {"kind": "segment", "requests": {"from": 2, "to": 3}}, "action": {"status": 500}}"#,
            #"{"id": "first-only", "match": {"kind": "media", "requests": 1}, "action": {"status": 404}}"#)
        var one = SessionState(sessionID: "a")
        var two = SessionState(sessionID: "b")
        let media = RequestFacts(sessionID: "a", kind: .media, variant: v1)
        var answers: [Int?] = []
        for msn in 1...5 {
            // Media requests in between do not count for the segment rule.
            answers.append(engine.plan(for: media, state: &one, now: .zero).response.flatMap(statusCode))
            answers.append(engine.plan(for: segment(msn, session: "a"), state: &one, now: .zero).response.flatMap(statusCode))
        }
        #expect(answers == [404, nil, nil, 500, nil, 500, nil, nil, nil, nil])
        // Another session has its own counters.
        #expect(engine.plan(for: segment(9, session: "b"), state: &two, now: .zero).response == nil)
        #expect(engine.plan(for: segment(9, session: "b"), state: &two, now: .zero).response.flatMap(statusCode) == 500)
        #expect(one.matchCount(ref("second-and-third")) == 5)
    }

    @Test func requestsCountOnlyInsideTheWindow() throws {
        let engine = try makeEngine(#"{"id": "r", "match": {"after": "10s", "requests": 1}, "action": {"status": 500}}"#)
        var state = SessionState(sessionID: "s1")
        #expect(engine.plan(for: segment(1), state: &state, now: .seconds(0)).response == nil)
        #expect(engine.plan(for: segment(2), state: &state, now: .seconds(5)).response == nil)
        #expect(engine.plan(for: segment(3), state: &state, now: .seconds(10)).response != nil)
        #expect(engine.plan(for: segment(4), state: &state, now: .seconds(11)).response == nil)
    }

    @Test func firstWireRuleWinsAndDelayCombines() throws {
        let engine = try makeEngine(
            #"{"id": "slow", "match": {"kind": "segment"}, "action": {"delay": "2s"}}"#,
            #"{"id": "fail", "match": {"msn": 3}, "action": {"status": 503, "delay": "9s"}}"#,
            #"{"id": "hang", "match": {"msn": 3}, "action": {"hang": true}}"#,
            #"{"id": "gap", "match": {"msn": 3}, "action": {"gap": true}}"#)
        var state = SessionState(sessionID: "s1")
        let plan = engine.plan(for: segment(3), state: &state, now: .zero)
        #expect(plan.delay == .seconds(2))
        #expect(plan.delayRule == ref("slow"))
        #expect(plan.response == .status(code: 503, headers: [], body: nil))
        #expect(plan.responseRule == ref("fail"))
        #expect(plan.matchedRules == [ref("slow"), ref("fail"), ref("hang"), ref("gap")])
        #expect(plan.answersWithoutUpstream)
        let other = engine.plan(for: segment(4), state: &state, now: .zero)
        #expect(other.delay == .seconds(2))
        #expect(other.response == nil)
        #expect(!other.answersWithoutUpstream)
    }

    @Test func playlistActionsAllApplyInFileOrder() throws {
        let engine = try makeEngine(
            #"{"id": "shift", "match": {"kind": "media"}, "action": {"sequenceShift": -2}}"#,
            #"{"id": "late", "match": {}, "action": {"status": 500}}"#,
            #"{"id": "td", "match": {}, "action": {"targetDuration": 6, "endList": "add"}}"#,
            #"{"id": "strip", "match": {}, "action": {"stripVariants": "highest"}}"#,
            #"{"id": "gap", "match": {"variant": {"index": 1}, "msn": {"from": 5}}, "action": {"gap": {"status": 410}}}"#)
        var state = SessionState(sessionID: "s1")
        let media = RequestFacts(sessionID: "s1", kind: .media, variant: v1)
        let plan = engine.plan(for: media, state: &state, now: .zero)
        #expect(plan.content.map(\.action) == [.sequenceShift(-2), .targetDuration(6), .endList(.add), .gap(status: 410)])
        #expect(plan.content.map(\.rule.id) == ["shift", "td", "td", "gap"])
        #expect(plan.responseRule == ref("late"))
        // stripVariants only on the master; the media-only steps do not appear there.
        let master = engine.plan(for: RequestFacts(sessionID: "s1", kind: .master), state: &state, now: .zero)
        #expect(master.content.map(\.action) == [.stripVariants([.highest])])
        // The gap selector picks segments by MSN; the segment itself answers 410.
        let selector = try #require(plan.content.last?.segments)
        #expect(selector.selects(msn: 5, index: nil, mediaTime: nil))
        #expect(!selector.selects(msn: 4, index: nil, mediaTime: nil))
        let gapped = engine.plan(for: segment(6), state: &state, now: .zero)
        #expect(gapped.responseRule == ref("late"))  // file order: "late" comes first
        let gapOnly = try makeEngine(#"{"id": "gap", "match": {"msn": {"from": 5}}, "action": {"gap": {"status": 410}}}"#)
        #expect(gapOnly.plan(for: segment(6), state: &state, now: .zero).response == .status(code: 410, headers: [], body: nil))
        #expect(gapOnly.plan(for: segment(4), state: &state, now: .zero).response == nil)
        #expect(gapOnly.plan(for: RequestFacts(sessionID: "s1", kind: .master), state: &state, now: .zero).isEmpty)
    }

    @Test func rejectRangesOnlyForRangeRequests() throws {
        let engine = try makeEngine(
            #"{"id": "ranges", "match": {"kind": "segment"}, "action": {"rejectRanges": true}}"#,
            #"{"id": "slow", "match": {"kind": "segment"}, "action": {"throttle": "1Mbps"}}"#)
        var state = SessionState(sessionID: "s1")
        #expect(engine.plan(for: segment(1, range: true), state: &state, now: .zero).response == .rejectRanges)
        #expect(engine.plan(for: segment(1), state: &state, now: .zero).response == .throttle(bytesPerSecond: 125_000))
    }

    @Test func freezeRemembersWhenItsWindowOpened() throws {
        let engine = try makeEngine(#"{"id": "f", "match": {"kind": "media", "after": "20s", "for": "30s"}, "action": {"freeze": true}}"#)
        var state = SessionState(sessionID: "s1")
        let media = RequestFacts(sessionID: "s1", kind: .media, variant: v1)
        #expect(engine.plan(for: media, state: &state, now: .seconds(100)).content.isEmpty)
        let plan = engine.plan(for: media, state: &state, now: .seconds(125))
        #expect(plan.content == [ContentStep(rule: ref("f"), action: .freeze, windowStart: .seconds(120))])
        #expect(engine.needsPlaylistHistory)
    }

    @Test func contentOnlyRuleMatchesWhereItHasEffect() throws {
        // No kind given: a key damage rule applies to key requests only and never delays a segment.
        let engine = try makeEngine(#"{"id": "k", "match": {}, "action": {"key": "wrong-length"}}"#)
        var state = SessionState(sessionID: "s1")
        #expect(engine.plan(for: segment(1), state: &state, now: .zero).isEmpty)
        let key = engine.plan(for: RequestFacts(sessionID: "s1", kind: .key, variant: v1), state: &state, now: .zero)
        #expect(key.content.map(\.action) == [.key(.wrongLength)])
        #expect(ContentDamage.apply(key.content, to: [UInt8](repeating: 7, count: 16), kind: .key).count == 15)
    }
}

func statusCode(_ action: WireAction) -> Int? {
    if case .status(let code, _, _) = action { return code }
    return nil
}

@Suite struct LayerTests {
    @Test func aLayerSetLaterHasItsOwnClock() throws {
        let scenario = try RuleDecoder.decode(Array(#"{"name": "api", "description": "d", "rules": [{"id": "w", "match": {"kind": "segment", "after": "10s", "for": "5s"}, "action": {"status": 503}}]}"#.utf8), file: "api.json")
        let engine = RuleEngine(layers: [RuleEngine.Layer([scenario], origin: .seconds(100))])
        var state = SessionState(sessionID: "s")
        let segment = RequestFacts(sessionID: "s", kind: .segment)
        _ = engine.plan(for: segment, state: &state, now: .seconds(0))  // the session began at 0
        #expect(engine.plan(for: segment, state: &state, now: .seconds(15)).response == nil, "15 s into the session, 5 s before the layer opened")
        #expect(engine.plan(for: segment, state: &state, now: .seconds(110)).response != nil, "10 s after the layer was set")
        #expect(engine.plan(for: segment, state: &state, now: .seconds(115)).response == nil, "its window closed")
    }

    @Test func apiLayersGoBetweenRuleFilesAndPresets() throws {
        func scenario(_ name: String) throws -> Scenario {
            try RuleDecoder.decode(Array(#"{"name": "\#(name)", "description": "d", "rules": [{"id": "r", "match": {"kind": "segment"}, "action": {"status": 503}}]}"#.utf8), file: name)
        }
        let base = RuleEngine(layers: [RuleEngine.Layer([try scenario("files")]), RuleEngine.Layer([try scenario("preset")])])
        let layered = base.inserting([RuleEngine.Layer([try scenario("every")]), RuleEngine.Layer([try scenario("session")])], beforeLayer: 1)
        #expect(layered.entries.map(\.reference.scenario) == ["files", "every", "session", "preset"])
        let again = layered.inserting([RuleEngine.Layer([try scenario("later")])], beforeLayer: 3)
        #expect(again.entries.map(\.reference.scenario) == ["files", "every", "session", "later", "preset"])
    }

    @Test func resettingAScenarioRestartsItsCounters() throws {
        let scenario = try RuleDecoder.decode(Array(#"{"name": "api", "description": "d", "rules": [{"id": "third", "match": {"kind": "segment", "requests": 3}, "action": {"status": 503}}]}"#.utf8), file: "api.json")
        let engine = RuleEngine(scenarios: [scenario])
        var state = SessionState(sessionID: "s")
        let segment = RequestFacts(sessionID: "s", kind: .segment)
        let first = (0..<3).map { engine.plan(for: segment, state: &state, now: .seconds($0)).response != nil }
        #expect(first == [false, false, true])
        state.resetCounters(scenarios: ["api"])
        let again = (0..<3).map { engine.plan(for: segment, state: &state, now: .seconds(10 + $0)).response != nil }
        #expect(again == [false, false, true])
    }
}
