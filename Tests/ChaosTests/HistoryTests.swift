import Testing
import HLS
@testable import Chaos

@Suite struct HistoryTests {
    func body(_ n: Int) -> [UInt8] { Array("#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:\(n)\n".utf8) }

    @Test func versionsByTime() {
        var history = PlaylistHistory()
        history.record(body(1), at: .seconds(0))
        history.record(body(1), at: .seconds(2))     // unchanged: not stored again
        history.record(body(2), at: .seconds(4))
        history.record(body(3), at: .seconds(6))
        #expect(history.versions.count == 3)
        #expect(history.version(asOf: .seconds(3)) == body(1))
        #expect(history.version(asOf: .seconds(4)) == body(2))
        #expect(history.version(before: .seconds(4)) == body(1))
        #expect(history.version(before: .seconds(5)) == body(2))
        #expect(history.version(now: .seconds(7), lag: .seconds(5)) == body(1))
        #expect(history.version(asOf: .seconds(-10)) == body(1))    // before anything: the oldest
        #expect(history.latest == body(3))
    }

    @Test func bounded() {
        var history = PlaylistHistory(capacity: 3)
        for n in 0..<10 { history.record(body(n), at: .seconds(n)) }
        #expect(history.versions.map(\.seen) == [.seconds(7), .seconds(8), .seconds(9)])
    }

    @Test func historiesOfASessionStayWithinTheirByteBudget() {
        var state = SessionState(sessionID: "s1", historyBudget: 1000)
        var forgotten = 0
        for n in 0..<200 {
            forgotten += state.recordPlaylist(Array(repeating: UInt8(n % 250), count: 100), resource: "v\(n % 3)", at: .seconds(n))
        }
        #expect(state.historyBytes <= 1000)
        #expect(state.historyBytes == state.histories.values.map(\.byteCount).reduce(0, +))
        #expect(forgotten == 190)
        // What is left is the newest versions of each resource.
        #expect(state.histories.values.flatMap(\.versions).map(\.seen).min() == .seconds(190))
        // A single playlist larger than the budget is still kept (it is what gets served).
        state.recordPlaylist(Array(repeating: 1, count: 5000), resource: "big", at: .seconds(300))
        #expect(state.histories["big"]?.latest?.count == 5000)
    }

    @Test func historyReachesOnlyAsFarBackAsTheRulesLook() throws {
        let lag = try makeEngine(#"{"id": "l", "match": {"kind": "media"}, "action": {"lag": "6s"}}"#)
        #expect(lag.historyHorizon == .seconds(11))
        let freeze = try makeEngine(#"{"id": "f", "match": {"kind": "media", "after": "20s", "for": "30s"}, "action": {"freeze": true}}"#)
        #expect(freeze.historyHorizon == .seconds(35))
        let endless = try makeEngine(#"{"id": "f", "match": {"kind": "media", "after": "20s"}, "action": {"freeze": true}}"#)
        #expect(endless.historyHorizon == nil)

        var state = SessionState(sessionID: "s1")
        for second in 0..<3600 where second % 2 == 0 {
            state.recordPlaylist(body(second), resource: "u", at: .seconds(second), horizon: lag.historyHorizon)
        }
        let versions = try #require(state.histories["u"]).versions
        #expect(versions.count <= 7, "an hour of reloads keeps what 6 s of lag can ask for")
        #expect(try #require(state.histories["u"]).version(now: .seconds(3598), lag: .seconds(6)) == body(3592))
    }

    @Test func freezeServesTheVersionBeforeTheWindow() throws {
        let engine = try makeEngine(#"{"id": "f", "match": {"kind": "media", "after": "4s", "for": "10s"}, "action": {"freeze": true}}"#)
        var state = SessionState(sessionID: "s1")
        let media = RequestFacts(sessionID: "s1", kind: .media, variant: v1)
        var served: [[UInt8]] = []
        for second in stride(from: 0, through: 16, by: 2) {
            let now = Duration.seconds(second)
            let upstream = body(second / 2)                 // the origin changes every 2 s
            state.recordPlaylist(upstream, resource: "http://o/v1.m3u8", at: now)
            let plan = engine.plan(for: media, state: &state, now: now)
            served.append(PlaylistSurgery.body(serving: upstream, steps: plan.content,
                                               history: state.histories["http://o/v1.m3u8"], now: now))
        }
        // t = 0, 2 live; t = 4 … 12 frozen on the version of t = 2; t = 14, 16 live again.
        #expect(served == [body(0), body(1), body(1), body(1), body(1), body(1), body(1), body(7), body(8)])
    }

    @Test func lagServesAnOlderVersion() throws {
        let engine = try makeEngine(#"{"id": "l", "match": {"kind": "media"}, "action": {"lag": "6s"}}"#)
        var state = SessionState(sessionID: "s1")
        let media = RequestFacts(sessionID: "s1", kind: .media, variant: v1)
        var served: [[UInt8]] = []
        for second in stride(from: 0, through: 10, by: 2) {
            let now = Duration.seconds(second)
            state.recordPlaylist(body(second), resource: "u", at: now)
            let plan = engine.plan(for: media, state: &state, now: now)
            served.append(PlaylistSurgery.body(serving: body(second), steps: plan.content, history: state.histories["u"], now: now))
        }
        #expect(served == [body(0), body(0), body(0), body(0), body(2), body(4)])
    }
}
