import Testing
import HLS
@testable import Chaos

/// Playlist actions on real playlist text (the demo origin's master and a live media playlist).
@Suite struct SurgeryTests {
    static let master = """
    #EXTM3U
    #EXT-X-VERSION:3
    #EXT-X-INDEPENDENT-SEGMENTS
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",LANGUAGE="en",NAME="English",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="1",URI="audio/en/index.m3u8"
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",LANGUAGE="fr",NAME="Français",DEFAULT=NO,AUTOSELECT=YES,CHANNELS="1",URI="audio/fr/index.m3u8"
    #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="en",NAME="English",DEFAULT=NO,AUTOSELECT=YES,FORCED=NO,URI="subs/en/index.m3u8"
    #EXT-X-STREAM-INF:BANDWIDTH=456468,AVERAGE-BANDWIDTH=202118,RESOLUTION=416x234,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="aud",SUBTITLES="subs"
    v0/index.m3u8
    #EXT-X-STREAM-INF:BANDWIDTH=606116,AVERAGE-BANDWIDTH=335849,RESOLUTION=640x360,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="aud",SUBTITLES="subs"
    v1/index.m3u8
    #EXT-X-STREAM-INF:BANDWIDTH=884356,AVERAGE-BANDWIDTH=592531,RESOLUTION=960x540,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="aud",SUBTITLES="subs"
    v2/index.m3u8

    """

    static let live = """
    #EXTM3U
    #EXT-X-VERSION:3
    #EXT-X-TARGETDURATION:2
    #EXT-X-MEDIA-SEQUENCE:6
    #EXT-X-DISCONTINUITY-SEQUENCE:0
    #EXTINF:2.000,
    seg-6.ts
    #EXTINF:2.000,
    seg-7.ts
    #EXTINF:2.000,
    seg-8.ts
    #EXTINF:2.000,
    seg-9.ts

    """

    static let vod = """
    #EXTM3U
    #EXT-X-VERSION:3
    #EXT-X-TARGETDURATION:2
    #EXT-X-PLAYLIST-TYPE:VOD
    #EXTINF:2.000,
    seg-0.ts
    #EXTINF:2.000,
    seg-1.ts
    #EXTINF:2.000,
    seg-2.ts
    #EXT-X-ENDLIST

    """

    /// Runs the engine for one request and applies the resulting plan to `text`.
    func serve(_ text: String, _ facts: RequestFacts, rules: String...) throws -> (Playlist, PlaylistSurgery.Report, FaultPlan) {
        let json = #"{"name": "s", "rules": [\#(rules.joined(separator: ","))]}"#
        let engine = RuleEngine(scenario: try decode(json))
        var state = SessionState(sessionID: facts.sessionID)
        let plan = engine.plan(for: facts, state: &state, now: .zero)
        var playlist = try Playlist(string: text)
        let report = PlaylistSurgery.apply(plan.content, to: &playlist, backupURI: { "/backup/" + $0.uri })
        return (playlist, report, plan)
    }

    let masterRequest = RequestFacts(sessionID: "s1", kind: .master)
    let mediaRequest = RequestFacts(sessionID: "s1", kind: .media, variant: v1)

    @Test func stripHighestVariant() throws {
        let (playlist, report, _) = try serve(Self.master, masterRequest,
                                              rules: #"{"id": "x", "match": {}, "action": {"stripVariants": "highest"}}"#)
        #expect(playlist.variants.map(\.uri) == ["v0/index.m3u8", "v1/index.m3u8"])
        #expect(report.strippedVariants == [2])
        #expect(!playlist.text.contains("960x540"))
        #expect(try Playlist(string: playlist.text, strict: true).variants.count == 2)
    }

    @Test func stripTwiceUsesOriginIndexes() throws {
        let (playlist, _, _) = try serve(Self.master, masterRequest,
                                         rules: #"{"id": "a", "match": {}, "action": {"stripVariants": {"index": 0}}}"#,
                                         #"{"id": "b", "match": {}, "action": {"stripVariants": {"index": 2}}}"#)
        #expect(playlist.variants.map(\.uri) == ["v1/index.m3u8"])
    }

    @Test func stripFrenchAudio() throws {
        let (playlist, report, _) = try serve(Self.master, masterRequest,
            rules: #"{"id": "x", "match": {}, "action": {"stripRenditions": {"type": "AUDIO", "language": "fr"}}}"#)
        #expect(playlist.renditions.map(\.name) == ["English", "English"])
        #expect(report.strippedRenditions == 1)
        #expect(!playlist.text.contains("audio/fr"))
        #expect(playlist.variants.allSatisfy { $0.audio == "aud" })
    }

    @Test func stripAllAudioDropsTheGroupFromVariants() throws {
        let (playlist, _, _) = try serve(Self.master, masterRequest,
            rules: #"{"id": "x", "match": {}, "action": {"stripRenditions": {"type": "AUDIO"}}}"#)
        #expect(playlist.variants.allSatisfy { $0.audio == nil })
        #expect(try Playlist(string: playlist.text, strict: true).renditions.count == 1)
    }

    @Test func backupVariantsDuplicateEveryVariant() throws {
        let (playlist, report, _) = try serve(Self.master, masterRequest,
            rules: #"{"id": "x", "match": {}, "action": {"backupVariants": true}}"#)
        #expect(playlist.variants.map(\.uri) == ["v0/index.m3u8", "v1/index.m3u8", "v2/index.m3u8",
                                                "/backup/v0/index.m3u8", "/backup/v1/index.m3u8", "/backup/v2/index.m3u8"])
        #expect(playlist.variants[3].attributes == playlist.variants[0].attributes)
        #expect(playlist.variants[5].bandwidth == 884_356)
        #expect(report.backupOf == [3: 0, 4: 1, 5: 2])
    }

    @Test func gapOnLiveMSNs() throws {
        let (playlist, report, _) = try serve(Self.live, mediaRequest,
            rules: #"{"id": "g", "match": {"kind": "segment", "variant": {"index": 1}, "msn": {"from": 7, "to": 8}}, "action": {"gap": true}}"#)
        #expect(playlist.segments.map(\.gap) == [false, true, true, false])
        #expect(report.gapped == [7, 8])
        #expect(playlist.text.contains("#EXTINF:2.000,\n#EXT-X-GAP\nseg-7.ts"))
        // Another variant's playlist is untouched.
        var other = mediaRequest
        other.variant = v2
        let (untouched, _, _) = try serve(Self.live, other,
            rules: #"{"id": "g", "match": {"kind": "segment", "variant": {"index": 1}, "msn": 7}, "action": {"gap": true}}"#)
        #expect(untouched.text == Self.live)
    }

    @Test func removeByIndexOnVOD() throws {
        let (playlist, report, _) = try serve(Self.vod, mediaRequest,
            rules: #"{"id": "r", "match": {"index": 1}, "action": {"remove": true}}"#)
        #expect(playlist.segments.map(\.uri) == ["seg-0.ts", "seg-2.ts"])
        #expect(report.removed == [1])
    }

    @Test func gapByMediaTimeOnVOD() throws {
        let (playlist, _, _) = try serve(Self.vod, mediaRequest,
            rules: #"{"id": "r", "match": {"time": {"from": "2s", "to": "4s"}}, "action": {"gap": true}}"#)
        #expect(playlist.segments.map(\.gap) == [false, true, false])
    }

    @Test func sequenceTargetDurationEndList() throws {
        let (playlist, _, _) = try serve(Self.live, mediaRequest,
            rules: #"{"id": "a", "match": {}, "action": {"sequenceShift": -3, "targetDuration": 4}}"#,
            #"{"id": "b", "match": {}, "action": {"endList": "add"}}"#)
        #expect(playlist.mediaSequence == 3)
        #expect(playlist.targetDuration == 4)
        #expect(playlist.endList)
        #expect(playlist.text.hasSuffix("seg-9.ts\n#EXT-X-ENDLIST\n"))
        let (vod, _, _) = try serve(Self.vod, mediaRequest, rules: #"{"id": "a", "match": {}, "action": {"endList": "remove"}}"#)
        #expect(!vod.endList)
        #expect(!vod.text.contains("ENDLIST"))
    }

    @Test func untouchedWithoutRules() throws {
        let (playlist, _, plan) = try serve(Self.master, masterRequest,
            rules: #"{"id": "a", "match": {"kind": "segment"}, "action": {"status": 500}}"#)
        #expect(plan.isEmpty)
        #expect(playlist.text == Self.master)
    }

    func damaged(_ text: String, _ malformation: String, kind: PlaylistKind) throws -> String {
        let steps = [ContentStep(rule: ref("m"), action: .malform(try #require(Malformation(rawValue: malformation))))]
        return String(decoding: PlaylistSurgery.damage(Array(text.utf8), steps: steps, kind: kind), as: UTF8.self)
    }

    func badMediaText() throws -> String { try damaged(Self.live, "bad-attribute", kind: .media) }

    @Test func malformations() throws {
        let noHeader = try damaged(Self.live, "no-header", kind: .media)
        #expect(!noHeader.contains("#EXTM3U"))
        #expect(throws: PlaylistError.self) { try Playlist(string: noHeader) }

        let garbage = try damaged(Self.live, "garbage-line", kind: .media)
        #expect(garbage.hasPrefix("#EXTM3U\n#EXT-X-\u{1}\u{7}GARBAGE<<hlschaos>>\n%%% not a playlist line %%%\n#EXT-X-VERSION:3"))
        #expect(throws: PlaylistError.self) { try Playlist(string: garbage, strict: true) }
        #expect(throws: PlaylistError.self) { try Playlist(string: try damaged(Self.master, "garbage-line", kind: .multivariant), strict: true) }
        #expect(throws: PlaylistError.self) { try Playlist(string: badMediaText(), strict: true) }
        let overTarget = try Playlist(string: try damaged(Self.live, "extinf-over-target", kind: .media))
        #expect(overTarget.segments[0].duration.rounded() > Double(try #require(overTarget.targetDuration)))

        let badMaster = try damaged(Self.master, "bad-attribute", kind: .multivariant)
        #expect(badMaster.contains("#EXT-X-STREAM-INF:BANDWIDTH=not-a-number,AVERAGE-BANDWIDTH=202118"))
        #expect(throws: PlaylistError.self) { try Playlist(string: badMaster, strict: true) }
        let badMedia = try damaged(Self.live, "bad-attribute", kind: .media)
        #expect(badMedia.contains("#EXTINF:not-a-number,\nseg-6.ts"))

        let over = try damaged(Self.live, "extinf-over-target", kind: .media)
        #expect(over.contains("#EXTINF:5.000,\nseg-6.ts"))

        let version = try damaged(Self.live, "duplicate-version", kind: .media)
        #expect(version.contains("#EXT-X-VERSION:3\n#EXT-X-VERSION:7\n"))
        #expect(throws: PlaylistError.self) { try Playlist(string: version, strict: true) }

        let cut = try damaged(Self.live, "cut", kind: .media)
        #expect(cut.utf8.count == Self.live.utf8.count / 2)
        #expect(Self.live.hasPrefix(cut))
    }

    @Test func sessionDataDamage() throws {
        let steps = [ContentStep(rule: ref("d"), action: .sessionData(.malformed))]
        let text = String(decoding: PlaylistSurgery.damage(Array(Self.master.utf8), steps: steps, kind: .multivariant), as: UTF8.self)
        #expect(text.hasPrefix("#EXTM3U\n#EXT-X-SESSION-DATA:DATA-ID=\"com.hlschaos.malformed,VALUE=\"unterminated\n#EXT-X-VERSION:3"))
        let json = Array(#"{"title": "demo", "year": 2026}"#.utf8)
        let broken = ContentDamage.apply(steps, to: json, kind: .sessionData)
        #expect(String(decoding: broken, as: UTF8.self) == #"{"title": "demo{[,"#)
        // Media playlists are not touched by sessionData.
        #expect(PlaylistSurgery.damage(Array(Self.live.utf8), steps: steps, kind: .media) == Array(Self.live.utf8))
    }

    @Test func keyDamage() {
        let key = Array(0..<16).map(UInt8.init)
        #expect(ContentDamage.damageKey(key, .wrongLength) == Array(key.prefix(15)))
        let wrong = ContentDamage.damageKey(key, .wrongBytes)
        #expect(wrong.count == 16)
        #expect(zip(wrong, key).allSatisfy { $0 != $1 })
    }

    @Test func factsFromTheMaster() throws {
        let facts = VariantFacts.all(in: try Playlist(string: Self.master))
        #expect(facts.map(\.index) == [0, 1, 2])
        #expect(facts.map(\.isLowest) == [true, false, false])
        #expect(facts.map(\.isHighest) == [false, false, true])
        #expect(facts[1].resolution == "640x360")
        let vod = try Playlist(string: Self.vod)
        #expect(SegmentPosition.facts(for: vod.segments[2], in: vod) == (2, 4.0))
        let live = try Playlist(string: Self.live)
        #expect(SegmentPosition.facts(for: live.segments[2], in: live) == (nil, nil))
    }
}

@Suite struct LiveReloadTests {
    /// The demo origin's live playlist for a window of MSNs.
    func window(_ first: Int, count: Int = 4) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:\(first)"]
        for msn in first..<(first + count) { lines += ["#EXTINF:2.000,", "seg-\(msn).ts"] }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func gapFollowsTheMSNAcrossReloads() throws {
        let engine = try makeEngine(#"{"id": "g", "match": {"kind": "segment", "variant": "highest", "msn": 8}, "action": {"gap": true}}"#)
        var state = SessionState(sessionID: "s1")
        let media = RequestFacts(sessionID: "s1", kind: .media, variant: v2)
        var gapped: [[String]] = []
        for (reload, first) in (5...9).enumerated() {
            let plan = engine.plan(for: media, state: &state, now: .seconds(2 * reload))
            var playlist = try Playlist(string: window(first))
            PlaylistSurgery.apply(plan.content, to: &playlist)
            gapped.append(playlist.segments.filter(\.gap).map(\.uri))
            #expect(playlist.mediaSequence == first)
        }
        #expect(gapped == [["seg-8.ts"], ["seg-8.ts"], ["seg-8.ts"], ["seg-8.ts"], []])
        // The segment request for MSN 8 answers 404, its neighbours pass.
        #expect(engine.plan(for: segment(8, variant: v2), state: &state, now: .seconds(10)).response.flatMap(statusCode) == 404)
        #expect(engine.plan(for: segment(9, variant: v2), state: &state, now: .seconds(10)).isEmpty)
    }

    @Test func probabilisticGapIsStableAcrossReloadsAndRequests() throws {
        let engine = try makeEngine(#"{"id": "g", "match": {"probability": 0.5, "seed": 3}, "action": {"gap": true}}"#)
        var state = SessionState(sessionID: "s1")
        let media = RequestFacts(sessionID: "s1", kind: .media, variant: v1)
        var chosen: [Int: Bool] = [:]
        for first in 0..<20 {
            let plan = engine.plan(for: media, state: &state, now: .zero)
            var playlist = try Playlist(string: window(first, count: 6))
            PlaylistSurgery.apply(plan.content, to: &playlist)
            for segment in playlist.segments {
                if let earlier = chosen[segment.msn] { #expect(earlier == segment.gap, "msn \(segment.msn)") }
                chosen[segment.msn] = segment.gap
            }
        }
        #expect(chosen.values.contains(true) && chosen.values.contains(false))
        // Each segment request agrees with the playlist, every time it is asked.
        for (msn, gap) in chosen {
            for _ in 0..<3 {
                #expect((engine.plan(for: segment(msn), state: &state, now: .zero).response != nil) == gap)
            }
        }
    }
}
