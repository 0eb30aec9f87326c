import Testing
@testable import Chaos

/// One condition at a time: the request that should match does, the one that should not does not.
@Suite struct MatchingTests {
    func matches(_ match: String, _ facts: RequestFacts, now: Duration = .zero) throws -> Bool {
        let engine = try makeEngine(#"{"id": "r", "match": \#(match), "action": {"status": 500}}"#)
        var state = SessionState(sessionID: facts.sessionID)
        return engine.plan(for: facts, state: &state, now: now).responseRule == ref("r")
    }

    @Test func kind() throws {
        #expect(try matches(#"{"kind": "segment"}"#, segment(3)))
        #expect(try !matches(#"{"kind": "media"}"#, segment(3)))
        #expect(try matches(#"{"kind": ["media", "segment"]}"#, segment(3)))
        #expect(try matches(#"{"kind": "any"}"#, RequestFacts(sessionID: "s", kind: .key)))
        #expect(try matches(#"{"kind": "sessionData"}"#, RequestFacts(sessionID: "s", kind: .sessionData)))
        #expect(try matches(#"{"kind": "init"}"#, RequestFacts(sessionID: "s", kind: .`init`, variant: v1)))
        #expect(try matches(#"{"kind": "steering"}"#, RequestFacts(sessionID: "s", kind: .steering)))
    }

    @Test func variant() throws {
        #expect(try matches(#"{"variant": {"index": 1}}"#, segment(3, variant: v1)))
        #expect(try !matches(#"{"variant": {"index": 1}}"#, segment(3, variant: v2)))
        #expect(try matches(#"{"variant": {"index": [0, 2]}}"#, segment(3, variant: v2)))
        #expect(try matches(#"{"variant": "highest"}"#, segment(3, variant: v2)))
        #expect(try !matches(#"{"variant": "highest"}"#, segment(3, variant: v1)))
        #expect(try matches(#"{"variant": "lowest"}"#, segment(3, variant: v0)))
        #expect(try matches(#"{"variant": {"bandwidth": {"min": 500000, "max": 700000}}}"#, segment(3, variant: v1)))
        #expect(try !matches(#"{"variant": {"bandwidth": {"min": 500000}}}"#, segment(3, variant: v0)))
        #expect(try matches(#"{"variant": {"resolution": "960x540"}}"#, segment(3, variant: v2)))
        #expect(try matches(#"{"variant": {"name": "top"}}"#, segment(3, variant: v2)))
        #expect(try !matches(#"{"variant": {"name": "top"}}"#, segment(3, variant: v1)))
        // A rendition segment has no variant: a variant condition does not hold.
        let audio = RequestFacts(sessionID: "s", kind: .segment, rendition: RenditionFacts(type: "AUDIO", language: "fr", name: "Français"), msn: 3)
        #expect(try !matches(#"{"variant": "lowest"}"#, audio))
    }

    @Test func rendition() throws {
        let french = RequestFacts(sessionID: "s", kind: .media, rendition: RenditionFacts(type: "AUDIO", language: "fr", name: "Français"))
        #expect(try matches(#"{"rendition": {"type": "AUDIO", "language": "fr"}}"#, french))
        #expect(try matches(#"{"rendition": {"language": "FR"}}"#, french))
        #expect(try matches(#"{"rendition": {"name": "Français"}}"#, french))
        #expect(try !matches(#"{"rendition": {"language": "en"}}"#, french))
        #expect(try !matches(#"{"rendition": {"type": "SUBTITLES"}}"#, french))
        #expect(try !matches(#"{"rendition": {"type": "AUDIO"}}"#, segment(3)))
    }

    @Test func msnShapes() throws {
        #expect(try matches(#"{"msn": 3}"#, segment(3)))
        #expect(try !matches(#"{"msn": 3}"#, segment(4)))
        #expect(try matches(#"{"msn": {"from": 3, "to": 5}}"#, segment(5)))
        #expect(try !matches(#"{"msn": {"from": 3, "to": 5}}"#, segment(6)))
        #expect(try matches(#"{"msn": {"from": 10}}"#, segment(1000)))
        #expect(try matches(#"{"msn": {"every": 4}}"#, segment(12)))
        #expect(try !matches(#"{"msn": {"every": 4}}"#, segment(13)))
        #expect(try matches(#"{"msn": [1, {"from": 7, "to": 8}]}"#, segment(8)))
        #expect(try !matches(#"{"msn": [1, {"from": 7, "to": 8}]}"#, segment(2)))
        // A master playlist has no MSN.
        #expect(try !matches(#"{"msn": 3}"#, RequestFacts(sessionID: "s1", kind: .master)))
    }

    @Test func indexAndTime() throws {
        #expect(try matches(#"{"index": 2}"#, segment(40, index: 2)))
        #expect(try !matches(#"{"index": 2}"#, segment(40)))
        #expect(try matches(#"{"index": {"every": 2}}"#, segment(40, index: 4)))
        #expect(try matches(#"{"time": {"from": "30s", "to": "40s"}}"#, segment(15, time: 30)))
        #expect(try matches(#"{"time": {"from": "30s", "to": "40s"}}"#, segment(19, time: 38)))
        #expect(try !matches(#"{"time": {"from": "30s", "to": "40s"}}"#, segment(20, time: 40)))
        #expect(try !matches(#"{"time": {"from": "30s"}}"#, segment(14, time: 28)))
        #expect(try !matches(#"{"time": {"to": "1m"}}"#, segment(3)))
    }

    @Test func pathway() throws {
        var b = segment(3, variant: v1)
        b.pathway = "cdn-b"
        #expect(try matches(#"{"pathway": "cdn-b"}"#, b))
        #expect(try matches(#"{"pathway": ["cdn-a", "cdn-b"]}"#, b))
        #expect(try !matches(#"{"pathway": "cdn-a"}"#, b))
        #expect(try !matches(#"{"pathway": "CDN-B"}"#, b), "PATHWAY-IDs are compared as written")
        // A resource of no pathway (the master, the steering manifest, a stream without steering) never matches.
        #expect(try !matches(#"{"pathway": "cdn-b"}"#, segment(3, variant: v1)))
        #expect(try !matches(#"{"pathway": "cdn-b"}"#, RequestFacts(sessionID: "s", kind: .steering)))
    }

    @Test func copySessionMethodRange() throws {
        #expect(try matches(#"{"copy": "backup"}"#, segment(3, copy: .backup)))
        #expect(try !matches(#"{"copy": "backup"}"#, segment(3)))
        #expect(try matches(#"{"copy": "primary"}"#, segment(3)))
        // Renditions have no backup copy: neither primary nor backup matches them.
        let audio = RequestFacts(sessionID: "s1", kind: .media, rendition: RenditionFacts(type: "AUDIO", language: "en", name: "English"))
        #expect(try !matches(#"{"copy": "primary"}"#, audio))
        #expect(try !matches(#"{"copy": "backup"}"#, audio))
        #expect(try matches(#"{"session": "tv-1"}"#, segment(3, session: "tv-1")))
        #expect(try !matches(#"{"session": "tv-1"}"#, segment(3, session: "tv-10")))
        #expect(try matches(#"{"session": "tv-*"}"#, segment(3, session: "tv-10")))
        #expect(try matches(#"{"session": "tv-?"}"#, segment(3, session: "tv-7")))
        #expect(try !matches(#"{"session": "tv-?"}"#, segment(3, session: "phone-7")))
        var head = segment(3)
        head.method = "HEAD"
        #expect(try matches(#"{"method": "HEAD"}"#, head))
        #expect(try !matches(#"{"method": ["GET"]}"#, head))
        #expect(try matches(#"{"range": true}"#, segment(3, range: true)))
        #expect(try !matches(#"{"range": true}"#, segment(3)))
        #expect(try matches(#"{"range": false}"#, segment(3)))
    }

    @Test func globs() {
        #expect(Glob.matches("*", ""))
        #expect(Glob.matches("a*b*c", "a-x-b-y-c"))
        #expect(!Glob.matches("a*b*c", "a-x-b-y"))
        #expect(Glob.matches("*-tv", "living-room-tv"))
        #expect(!Glob.matches("tv", "tv2"))
    }
}
