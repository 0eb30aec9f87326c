import Foundation
@testable import Records
import Testing

/// One finding at a time, and the report as JSON.
@Suite struct ReactionReportFindingsTests {
    @Test func skippedSegmentsAreGapsAfterTheStart() {
        var t = Traffic()
        t.start(variant: 2)
        // Starts at 40 (the start is no gap), 43 comes late (no gap), 46–47 never come.
        for (index, msn) in [40, 41, 42, 44, 45, 43].enumerated() { t.segment(Double(index) * 2 + 0.5, variant: 2, msn: msn) }
        let before = t.id(ofSegment: 43, variant: 2)
        let jump = t.segment(13, variant: 1, msn: 48)

        let skipped = ReactionReport.skipped(in: t.records)
        #expect(skipped == [.init(variant: 1, from: 46, to: 47, time: t.at(13), records: [before, jump])])

        let report = ReactionReport.analyze(t.records, now: t.at(14))
        #expect(report.verdict.contains("Skipped segments 46–47."), "\(report.verdict)")
    }

    @Test func segmentsThatOnlyFailedAreSkipped() {
        // gap preset: segments 8-9 of variant 2 answer 404; the player moves on to 10 without them.
        var t = Traffic()
        t.start(variant: 2)
        for msn in 0...7 { t.segment(0.5 + Double(msn) * 2, variant: 2, msn: msn) }
        let failed = [t.segment(16.0, variant: 2, msn: 8, status: 404), t.segment(16.2, variant: 2, msn: 9, status: 404)]
        let next = t.segment(16.4, variant: 2, msn: 10)

        let report = ReactionReport.analyze(t.records, now: t.at(17))
        #expect(report.skipped == [.init(variant: 2, from: 8, to: 9, time: t.at(16.4),
                                         records: [t.id(ofSegment: 7, variant: 2)] + failed + [next])])
        #expect(report.outcome == .recovered)
        #expect(report.verdict == "No retry, switch or failover after the first 404 (segment 8 of variant 2); recovered. Skipped segments 8–9.")
    }

    @Test func switchesAcrossVariantsAreNoSkip() {
        var t = Traffic()
        t.start(variant: 2)
        t.segment(0.5, variant: 2, msn: 5)
        t.segment(2.5, variant: 1, msn: 6)
        t.segment(4.5, variant: 2, msn: 7)
        #expect(ReactionReport.skipped(in: t.records).isEmpty)
        #expect(ReactionReport.switches(in: t.records, bandwidths: [:]).map(\.direction) == [.down, .up])
    }

    @Test func directionByBandwidthElseByIndex() {
        #expect(ReactionReport.direction(from: 0, to: 1, bandwidths: [0: 2_000_000, 1: 800_000]) == (.down, .bandwidth))
        #expect(ReactionReport.direction(from: 0, to: 1, bandwidths: [0: 800_000, 1: 800_000]) == (.lateral, .bandwidth))
        #expect(ReactionReport.direction(from: 0, to: 1, bandwidths: [0: 800_000]) == (.up, .index))
        #expect(ReactionReport.direction(from: 2, to: 1, bandwidths: [:]) == (.down, .index))
    }

    @Test func upSwitchWithoutBandwidthsIsCleanAndSaysHowItDecided() {
        // ABR ramp-up at start: not trouble.
        var t = Traffic()
        t.start(variant: 0)
        t.segment(0.5, variant: 0, msn: 0)
        let playlist = t.media(2.0, variant: 2)
        let first = t.segment(2.1, variant: 2, msn: 1)

        let report = ReactionReport.analyze(t.records, now: t.at(4))
        #expect(report.switches == [.init(time: t.at(2.0), from: 0, to: 2, direction: .up, basis: .index,
                                          records: [t.id(ofSegment: 0, variant: 0), playlist, first])])
        #expect(report.notes.contains { $0.contains("variant index") })
        #expect(report.outcome == .clean)
        #expect(report.verdict == "Played without trouble; switched once, last up to variant 2.")
    }

    @Test func retriesMatchByPathWithoutQueryAndKeepByteRangeSegmentsApart() {
        var t = Traffic()
        // A key answering 403, asked again with a different token: the same resource.
        let key1 = t.add(1, kind: .key, variant: 1, tag: "~key.v1", file: "key.bin?token=a", status: 403)
        let key2 = t.add(2, kind: .key, variant: 1, tag: "~key.v1", file: "key.bin?token=b", status: 200)
        // Byte-range segments share a path: segment 3 failing, then segment 4 loading, is no retry.
        t.add(3, kind: .segment, variant: 1, msn: 3, tag: "~seg.v1.n3", file: "all.ts", status: 503)
        t.add(4, kind: .segment, variant: 1, msn: 4, tag: "~seg.v1.n4", file: "all.ts", status: 200)

        let retries = ReactionReport.retries(in: t.records)
        #expect(retries.map(\.records) == [[key1, key2]])
        #expect(retries.first?.succeeded == true)
        #expect(retries.first?.resource.path.hasSuffix("key.bin") == true)
    }

    @Test func hangsResetsAndAbortsAreFailures() {
        var t = Traffic()
        let hang = t.segment(1, variant: 0, msn: 1, status: nil, ending: .hang, actions: [.init(.hang(seconds: nil), rule: "test/rule")])
        let reset = t.segment(2, variant: 0, msn: 2, ending: .reset, actions: [.init(.reset(.afterBytes(100)), rule: "test/rule")])
        let abort = t.segment(3, variant: 0, msn: 3, ending: .clientAbort, actions: [])
        t.segment(4, variant: 0, msn: 4)
        let redirect = t.segment(5, variant: 0, msn: 5, status: 302)
        let report = ReactionReport.analyze(t.records, now: t.at(5))
        #expect(report.failures == [hang, reset, abort])
        #expect(!report.failures.contains(redirect))
        #expect(report.firstFault?.actions.map(\.words) == ["hang"])
        #expect(report.verdict == "No retry, switch or failover after the first fault (hang on segment 1 of variant 0); recovered. Skipped segments 1–3.")
    }

    @Test func failedSessionDataIsNoGiveUp() {
        var t = Traffic()
        t.start(variant: 1)
        t.segment(0.5, variant: 1, msn: 0)
        t.add(1, kind: .sessionData, tag: "~sessiondata", file: "data.json", status: 404)
        let report = ReactionReport.analyze(t.records, now: t.at(60))
        #expect(report.stop?.kind == .stopped)
        #expect(report.failures.count == 1)
    }

    @Test func masterFailingWithoutSegmentsIsAGiveUp() {
        var t = Traffic()
        let first = t.master(0, status: 502)
        let again = t.master(1, status: 502)
        let report = ReactionReport.analyze(t.records, now: t.at(30))
        #expect(report.stop?.kind == .gaveUp)
        #expect(report.stop?.records == [first, again])
        #expect(report.firstReaction?.kind == .retry)
        #expect(report.verdict == "Retried the master playlist once (1.0 s apart); gave up 1.0 s after the first 502 (the master playlist).")
    }

    @Test func blockingReloadsAreNotJudged() {
        var t = Traffic()
        for index in 0..<5 {
            t.media(Double(index) * 0.5, variant: 0, query: "?_HLS_msn=\(100 + index)&_HLS_part=0")
        }
        let report = ReactionReport.analyze(t.records, now: t.at(3), targetDuration: 4)
        #expect(report.reloads.first?.pace == .notJudged)
        #expect(report.notes.contains { $0.contains("Blocking playlist reloads") })
        #expect(report.retries.isEmpty)
    }

    /// Blocking reloads and delta updates are counted per playlist, with how long the blocking
    /// ones took; one held past three target durations is named in the verdict.
    @Test func lowLatencyReloadsAreSummedUpAndAnOverlongHoldIsNamed() throws {
        var t = Traffic()
        t.add(0, kind: .media, variant: 0, tag: "~media.v0", file: "v0/index.m3u8", status: 200)
        t.add(1, kind: .media, variant: 0, tag: "~media.v0", file: "v0/index.m3u8?_HLS_msn=10&_HLS_part=1&_HLS_skip=YES",
              status: 200, duration: 0.4)
        t.add(2, kind: .media, variant: 0, tag: "~media.v0", file: "v0/index.m3u8?_HLS_msn=10&_HLS_part=2",
              status: 200, duration: 0.38)
        let held = t.add(3, kind: .media, variant: 0, tag: "~media.v0", file: "v0/index.m3u8?_HLS_msn=10&_HLS_part=3",
                         status: 200, duration: 8.2)
        t.add(12, kind: .part, variant: 0, msn: 10, part: 3, tag: "~part.v0.n10.p3", file: "v0/part-10.3.m4s", status: 200)
        let report = ReactionReport.analyze(t.records, now: t.at(13), targetDuration: 2)
        let lowLatency = try #require(report.reloads.first?.lowLatency)
        #expect(lowLatency == .init(blocking: 3, medianHeld: 0.4, longestHeld: 8.2, longestRecord: held, deltaUpdates: 1))
        #expect(report.verdict.contains("A blocking reload of the playlist of variant 0 took 8.2 s, more than three target durations (6.0 s"),
                "\(report.verdict)")

        // The player stops with a blocking reload held: that is no failure.
        var stopped = Traffic()
        stopped.media(0, variant: 0)
        stopped.add(0.5, kind: .part, variant: 0, msn: 10, part: 0, tag: "~part.v0.n10.p0", file: "v0/part-10.0.m4s", status: 200)
        stopped.add(1, kind: .media, variant: 0, tag: "~media.v0", file: "v0/index.m3u8?_HLS_msn=10&_HLS_part=1",
                    status: nil, ending: .clientAbort, duration: 0.2)
        let stoppedReport = ReactionReport.analyze(stopped.records, now: stopped.at(2), targetDuration: 2)
        #expect(stoppedReport.failures.isEmpty && stoppedReport.outcome == .clean)
        // Nor when a playlist-damage rule matched it: the damage never reached an unanswered reload.
        var records = stopped.records
        records[2].actions = [.init(.content("lowLatency"), rule: "test/rule")]
        records[2].matchedRules = ["test/damage"]
        records[2].decidingRules = .init(content: ["test/damage"])
        #expect(ReactionReport.analyze(records, now: stopped.at(2), targetDuration: 2).failures.isEmpty)
        // A rule that delayed it did: the player gave up waiting because of the fault.
        records[2].decidingRules = .init(delay: "test/late")
        #expect(ReactionReport.analyze(records, now: stopped.at(2), targetDuration: 2).failures == [records[2].id])

        var plain = Traffic()
        for index in 0..<3 { plain.media(Double(index) * 2, variant: 0) }
        #expect(ReactionReport.analyze(plain.records, now: plain.at(7), targetDuration: 2).reloads.first?.lowLatency == nil)
    }

    @Test func noRecords() {
        let report = ReactionReport.analyze([], now: Date())
        #expect(report == ReactionReport(verdict: "No requests."))
    }

    @Test func encodesAsJSONAndBack() throws {
        var t = Traffic()
        t.start(variant: 2)
        t.segment(0.5, variant: 2, msn: 0)
        t.segment(2.5, variant: 2, msn: 1, status: 503)
        t.segment(3.5, variant: 2, msn: 1, status: nil, ending: .reset, actions: [.init(.reset(.beforeHeaders), rule: "test/rule")])
        t.media(4.0, variant: 1)
        t.segment(4.1, variant: 1, msn: 1)
        let report = ReactionReport.analyze(t.records, now: t.at(60), targetDuration: 4, bandwidths: [1: 1, 2: 2])

        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(report), as: UTF8.self)
        for fragment in ["\"direction\":\"down\"", "\"basis\":\"bandwidth\"", "\"statuses\":[503,null]",
                         "\"outcome\":\"recovered\"", "\"kind\":\"stopped\"", "\"verdict\":"] {
            #expect(json.contains(fragment), "\(fragment) in \(json)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        // ISO 8601 without fractions drops sub-second parts, so compare through the default strategy too.
        let exact = try JSONDecoder().decode(ReactionReport.self, from: JSONEncoder().encode(report))
        #expect(exact == report)
        #expect(try decoder.decode(ReactionReport.self, from: Data(json.utf8)).verdict == report.verdict)
    }
}
