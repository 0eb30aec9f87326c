import Addressing
import Foundation
@testable import Records
import Testing

/// Whole sessions that look like real player traffic, and what the report makes of them.
@Suite struct ReactionReportTests {
    /// The demo origin's three variants.
    let bandwidths = [0: 400_000, 1: 800_000, 2: 1_600_000]

    @Test func downSwitchAfter503s() throws {
        // hls.js-like: segment 8 of the top variant answers 503, retried twice a second apart, then
        // the player loads variant 1's playlist and carries on there from segment 8.
        var t = Traffic()
        t.start(variant: 2)
        for msn in 0...7 { t.segment(0.5 + Double(msn) * 2, variant: 2, msn: msn) }
        let first503 = t.segment(16.0, variant: 2, msn: 8, status: 503)
        let second503 = t.segment(17.0, variant: 2, msn: 8, status: 503)
        let last503 = t.segment(18.0, variant: 2, msn: 8, status: 503)
        let playlist = t.media(19.2, variant: 1)
        let recovered = t.segment(19.4, variant: 1, msn: 8)
        for msn in 9...11 { t.segment(19.4 + Double(msn - 8) * 2, variant: 1, msn: msn) }

        let report = ReactionReport.analyze(t.records, now: t.at(27), bandwidths: bandwidths)

        #expect(report.firstFault?.record == first503)
        #expect(report.firstFault?.status == 503)
        #expect(report.switches == [ReactionReport.VariantSwitch(
            time: t.at(19.2), from: 2, to: 1, direction: .down, basis: .bandwidth,
            records: [last503, playlist, recovered])])
        let series = try #require(report.retries.first)
        #expect(report.retries.count == 1)
        #expect(series.resource.msn == 8 && series.resource.variant == 2)
        #expect(series.retries == 2)
        #expect(series.spacing.map(rounded) == [1.0, 1.0])
        #expect(!series.succeeded)
        #expect(series.statuses == [503, 503, 503])
        #expect(series.records == [first503, second503, last503])
        #expect(report.firstReaction?.kind == .retry)
        #expect(report.firstReaction.map { rounded($0.after) } == 1.0)
        #expect(report.failovers.isEmpty)
        #expect(report.skipped.isEmpty)
        #expect(report.stop == nil)
        #expect(report.outcome == .recovered)
        #expect(report.notes.isEmpty)
        #expect(report.verdict == "Retried segment 8 of variant 2 twice (1.0 s apart), then switched down to variant 1 after 3.2 s; recovered.")
    }

    @Test func retrySeriesWithGrowingSpacing() throws {
        // ExoPlayer-like back-off on 500s: retries after 0.2, 1.1 and 2.1 s, the last one loads.
        var t = Traffic()
        t.start(variant: 1)
        for msn in 0...4 { t.segment(0.5 + Double(msn) * 2, variant: 1, msn: msn) }
        let attempts = [
            t.segment(10.0, variant: 1, msn: 5, status: 500),
            t.segment(10.2, variant: 1, msn: 5, status: 500),
            t.segment(11.3, variant: 1, msn: 5, status: 500),
            t.segment(13.4, variant: 1, msn: 5),
        ]
        t.segment(14.0, variant: 1, msn: 6)

        let report = ReactionReport.analyze(t.records, now: t.at(15), bandwidths: bandwidths)

        let series = try #require(report.retries.first)
        #expect(report.retries.count == 1)
        #expect(series.records == attempts)
        #expect(series.retries == 3)
        #expect(series.spacing.map(rounded) == [0.2, 1.1, 2.1])
        #expect(series.succeeded)
        #expect(series.statuses == [500, 500, 500, 200])
        #expect(report.switches.isEmpty)
        #expect(report.failures == Array(attempts.prefix(3)))
        #expect(report.firstReaction == .init(kind: .retry, time: t.at(10.2), after: report.firstReaction?.after ?? -1,
                                              records: [attempts[0], attempts[1]]))
        #expect(report.outcome == .recovered)
        #expect(report.verdict == "Retried segment 5 of variant 1 three times (0.2–2.1 s apart); recovered.")
    }

    @Test func failoverToTheBackupCopy() throws {
        // failover-backup preset, live: the primary copy's media playlist answers 404 from 10 s on;
        // the player retries it once, then moves to the backup copy of the same variant.
        var t = Traffic()
        t.master(0)
        for (index, time) in [0.1, 4.1, 8.1].enumerated() {
            t.media(time, variant: 2)
            t.segment(time + 0.2, variant: 2, msn: index)
        }
        let first404 = t.media(12.1, variant: 2, status: 404)
        t.media(12.6, variant: 2, status: 404)
        let backup = t.media(13.1, variant: 2, copy: "backup")
        t.segment(13.3, variant: 2, msn: 3, copy: "backup")
        t.media(17.1, variant: 2, copy: "backup")
        t.segment(17.3, variant: 2, msn: 4, copy: "backup")

        let report = ReactionReport.analyze(t.records, now: t.at(18), targetDuration: 4, bandwidths: bandwidths)

        #expect(report.failovers == [.init(variant: 2, time: t.at(13.1), after: report.failovers.first?.after ?? -1,
                                           succeeded: true, records: [first404, backup])])
        #expect(rounded(report.failovers[0].after) == 1.0)
        #expect(report.switches.isEmpty, "a backup copy is the same variant")
        #expect(report.retries.map(\.retries) == [1])
        #expect(report.retries.first?.resource.kind == .media)
        #expect(report.firstReaction?.kind == .retry)
        #expect(report.outcome == .recovered)
        #expect(report.skipped.isEmpty)
        #expect(report.verdict.hasPrefix("Retried the media playlist of variant 2 once (0.5 s apart), then failed over to the backup copy of variant 2 after 1.0 s; recovered."))
        // The primary playlist was reloaded every 4 s (within bounds), then twice more quickly.
        let primary = try #require(report.reloads.first { $0.variant == 2 && $0.copy == nil })
        #expect(primary.requests == 5)
        #expect(primary.pace == .withinBounds)
    }

    @Test func giveUpWithoutRetrying() throws {
        // Segment 8 answers 503; the player loads its playlist once more, then goes silent.
        var t = Traffic()
        t.start(variant: 2)
        for msn in 0...7 { t.segment(0.5 + Double(msn) * 2, variant: 2, msn: msn) }
        let failure = t.segment(16.0, variant: 2, msn: 8, status: 503)
        let reload = t.media(20.05, variant: 2)

        let report = ReactionReport.analyze(t.records, now: t.at(40), bandwidths: bandwidths)

        #expect(report.retries.isEmpty)
        #expect(report.switches.isEmpty)
        let stop = try #require(report.stop)
        #expect(stop.kind == .gaveUp)
        #expect(rounded(stop.time.timeIntervalSince(t.start)) == 20.1)
        #expect(rounded(stop.idle) == 19.9)
        #expect(stop.lastSegment == t.records.first { $0.id == failure }?.reportResource)
        #expect(stop.records == [failure, reload])
        #expect(report.firstReaction?.kind == .gaveUp)
        #expect(report.firstReaction?.records == [failure, reload])
        #expect(report.outcome == .gaveUp)
        #expect(report.verdict == "Gave up 4.1 s after the first 503 (segment 8 of variant 2) without retrying.")
    }

    @Test func giveUpAfterRetriesIsNotAStopWhileStillWithinTheThreshold() {
        var t = Traffic()
        t.start(variant: 0)
        t.segment(0.5, variant: 0, msn: 0)
        t.segment(2.0, variant: 0, msn: 1, status: nil, ending: .hang, duration: 10, actions: [.init(.hang(seconds: nil), rule: "test/rule")])
        t.segment(12.1, variant: 0, msn: 1, status: nil, ending: .hang, duration: 10, actions: [.init(.hang(seconds: nil), rule: "test/rule")])

        // 5 s after the second hang ended: not yet silent for 10 s.
        let early = ReactionReport.analyze(t.records, now: t.at(27))
        #expect(early.stop == nil)
        #expect(early.outcome == .unrecovered)
        #expect(early.verdict.contains("Retried segment 1 of variant 0 once (10.1 s apart); still failing"))

        let late = ReactionReport.analyze(t.records, now: t.at(40))
        #expect(late.stop?.kind == .gaveUp)
        #expect(late.outcome == .gaveUp)
        #expect(late.verdict == "Retried segment 1 of variant 0 once (10.1 s apart); gave up 20.1 s after the first fault (hang on segment 1 of variant 0).")
    }

    /// ffmpeg fetches the audio rendition's last segments after the video's: still finished.
    @Test func finishedIsJudgedOnTheVariantsSegments() {
        var t = Traffic()
        t.start(variant: 2)
        for msn in 0...9 { t.segment(0.5 + Double(msn) * 2, variant: 2, msn: msn) }
        t.add(20, kind: .segment, rendition: 0, msn: 9, tag: "~seg.r0.n9", file: "audio/9.aac", status: 200)
        let report = ReactionReport.analyze(t.records, now: t.at(60), bandwidths: bandwidths, lastMSN: [2: 9])
        #expect(report.stop?.kind == .finished)
        var early = Traffic()
        early.start(variant: 2)
        for msn in 0...5 { early.segment(0.5 + Double(msn) * 2, variant: 2, msn: msn) }
        early.add(20, kind: .segment, rendition: 0, msn: 9, tag: "~seg.r0.n9", file: "audio/9.aac", status: 200)
        #expect(ReactionReport.analyze(early.records, now: early.at(60), bandwidths: bandwidths, lastMSN: [2: 9]).stop?.kind == .stopped)
    }

    @Test func cleanVODPlayback() {
        var t = Traffic()
        t.start(variant: 2)
        for msn in 0...9 { t.segment(0.5 + Double(msn) * 2, variant: 2, msn: msn) }

        let finished = ReactionReport.analyze(t.records, now: t.at(60), bandwidths: bandwidths, lastMSN: [2: 9])
        #expect(finished.firstFault == nil && finished.firstFailure == nil && finished.firstReaction == nil)
        #expect(finished.switches.isEmpty && finished.retries.isEmpty && finished.failovers.isEmpty)
        #expect(finished.skipped.isEmpty && finished.failures.isEmpty)
        #expect(finished.reloads.isEmpty, "the VOD playlist was loaded once")
        #expect(finished.outcome == .clean)
        #expect(finished.stop?.kind == .finished)
        #expect(finished.stop?.records == [t.records.last!.id])
        #expect(finished.verdict == "Played without trouble. Finished at the last segment (segment 9 of variant 2).")

        let stopped = ReactionReport.analyze(t.records, now: t.at(60))
        #expect(stopped.stop?.kind == .stopped)
        #expect(stopped.verdict == "Played without trouble. Stopped after the last segment it requested (segment 9 of variant 2).")
        #expect(stopped.notes.contains { $0.contains("no lastMSN") })

        let playing = ReactionReport.analyze(t.records, now: t.at(20))
        #expect(playing.stop == nil)
        #expect(playing.verdict == "Played without trouble.")
    }

    /// A forward-proxy device session: the stream's requests are absolute URLs, and the session
    /// also holds the CONNECT that opened the tunnel and the browser's own failed background
    /// requests after the last segment. Only the stream is judged.
    @Test func aDevicesOtherTrafficIsNotThePlayersReaction() {
        var t = Traffic()
        t.start(variant: 2)
        for msn in 0...9 { t.segment(0.5 + Double(msn) * 2, variant: 2, msn: msn) }
        var records = t.records.map { record in
            var record = record
            record.path = "https://cdn.example:443/vod/ts/" + record.path.split(separator: "/").suffix(2).joined(separator: "/")
            return record
        }
        func other(_ id: UInt64, _ method: String, _ path: String, at seconds: Double) -> RequestRecord {
            RequestRecord(
                id: id, time: t.at(seconds), session: "tv1", client: "192.168.1.20:51234", method: method, path: path,
                kind: nil, variant: nil, rendition: nil, copy: nil, msn: nil, part: nil, matchedRules: [], actions: [],
                status: 502, bytesSent: 0, ending: .complete, duration: 0.01)
        }
        records.append(other(100, "CONNECT", "accounts.google.com:443", at: 21))
        records.append(other(101, "GET", "http://clients2.google.com/time/1/current", at: 22))
        records.append(other(102, "GET", "https://cdn.example:443/favicon.ico", at: 22.5))

        #expect(records.streamRecords.map(\.id) == t.records.map(\.id) + [102])
        let report = ReactionReport.analyze(records, now: t.at(60), bandwidths: bandwidths, lastMSN: [2: 9])
        #expect(report.requests == t.records.count + 1)
        #expect(report.failures == [102])
        #expect(report.stop?.kind == .gaveUp, "a failure on the stream's own host still counts")
        #expect(report.outcome == .gaveUp)

        records.removeLast()
        let clean = ReactionReport.analyze(records, now: t.at(60), bandwidths: bandwidths, lastMSN: [2: 9])
        #expect(clean.outcome == .clean && clean.failures.isEmpty)
        #expect(clean.stop?.kind == .finished)
        #expect(clean.verdict == "Played without trouble. Finished at the last segment (segment 9 of variant 2).")
        // Reverse-proxy records are all the stream's, whatever their kind.
        #expect(t.records.streamRecords.count == t.records.count)
    }

    @Test func liveReloadCadenceWithinBounds() throws {
        // Target duration 6: reloads about every 6 s, a segment after each.
        var t = Traffic()
        t.master(0)
        for (index, time) in [0.1, 6.1, 12.3, 18.2, 24.4].enumerated() {
            t.media(time, variant: 1)
            t.segment(time + 0.1, variant: 1, msn: 100 + index)
        }
        let report = ReactionReport.analyze(t.records, now: t.at(25), targetDuration: 6, bandwidths: bandwidths)

        let cadence = try #require(report.reloads.first)
        #expect(report.reloads.count == 1)
        #expect(cadence.variant == 1 && cadence.rendition == nil)
        #expect(cadence.requests == 5)
        #expect(rounded(cadence.medianInterval) == 6.1)
        #expect(cadence.pace == .withinBounds)
        #expect(cadence.records == t.records.filter { $0.kind == .media }.map(\.id))
        #expect(report.outcome == .clean)
        #expect(report.verdict == "Played without trouble.")
    }

    @Test(arguments: [(1.5, ReactionReport.ReloadCadence.Pace.tooFast, "too fast (every 1.5 s, target duration 6.0 s)"),
                      (10.0, .tooSlow, "too slow (every 10.0 s, target duration 6.0 s)")])
    func liveReloadCadenceOutOfBounds(interval: Double, pace: ReactionReport.ReloadCadence.Pace, phrase: String) throws {
        var t = Traffic()
        t.master(0)
        for index in 0..<6 {
            t.media(0.1 + Double(index) * interval, variant: 1)
            t.segment(0.2 + Double(index) * interval, variant: 1, msn: 100 + index)
        }
        let report = ReactionReport.analyze(t.records, now: t.at(0.3 + 5 * interval), targetDuration: 6)

        let cadence = try #require(report.reloads.first)
        #expect(cadence.pace == pace)
        #expect(abs((cadence.ratio ?? 0) - interval / 6) < 0.01)
        #expect(report.verdict.contains("Reloaded the playlist of variant 1 \(phrase)."), "\(report.verdict)")
    }

    @Test func throttleDownSwitchKeepsPlaying() {
        // throttle-downswitch: segments of variants 1 and 2 are capped; nothing fails, the player moves down.
        var t = Traffic()
        t.start(variant: 2)
        t.segment(0.5, variant: 2, msn: 0)
        let throttled = t.segment(2.5, variant: 2, msn: 1, duration: 6, actions: [.init(.throttle(bytesPerSecond: 37_500), rule: "test/rule")])
        t.media(8.6, variant: 0)
        t.segment(8.7, variant: 0, msn: 2)
        t.segment(10.7, variant: 0, msn: 3)

        let report = ReactionReport.analyze(t.records, now: t.at(11), bandwidths: bandwidths)
        #expect(report.firstFault?.record == throttled)
        #expect(report.firstFailure == nil)
        #expect(report.outcome == .continued)
        #expect(report.firstReaction?.kind == .switch)
        #expect(report.verdict == "Switched down to variant 0 after 6.1 s; kept playing.")
    }
}

/// Builds a session's records tersely: times in seconds from a fixed start, ids in order, paths as
/// the proxy writes them, and a fault's `actions` for every status ≥ 400 unless told otherwise.
struct Traffic {
    static let origin = "http/127.0.0.1:8000/vod/ts"
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    var session = "tv1"
    private(set) var records: [RequestRecord] = []

    func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    func id(ofSegment msn: Int, variant: Int) -> UInt64 {
        records.last { $0.kind == .segment && $0.msn == msn && $0.variant == variant }!.id
    }

    /// Master playlist, then the variant's media playlist.
    mutating func start(variant: Int) {
        master(0)
        media(0.1, variant: variant)
    }

    @discardableResult
    mutating func master(_ time: Double, status: Int? = 200) -> UInt64 {
        add(time, kind: .master, tag: "~master", file: "master.m3u8", status: status)
    }

    @discardableResult
    mutating func media(_ time: Double, variant: Int? = nil, rendition: Int? = nil, copy: String? = nil,
                        status: Int? = 200, query: String = "") -> UInt64 {
        let owner = variant.map { "v\($0)" } ?? rendition.map { "r\($0)" } ?? ""
        return add(time, kind: .media, variant: variant, rendition: rendition, copy: copy,
                   tag: "~media.\(owner)\(copy == nil ? "" : ".b")", file: "\(owner)/index.m3u8\(query)", status: status)
    }

    @discardableResult
    mutating func segment(
        _ time: Double, variant: Int, msn: Int, copy: String? = nil, status: Int? = 200,
        ending: RequestRecord.Ending = .complete, duration: Double = 0.15, actions: [RequestRecord.Action]? = nil
    ) -> UInt64 {
        add(time, kind: .segment, variant: variant, copy: copy, msn: msn,
            tag: "~seg.v\(variant).n\(msn)\(copy == nil ? "" : ".b")", file: "v\(variant)/segment\(msn).ts",
            status: status, ending: ending, duration: duration, actions: actions)
    }

    @discardableResult
    mutating func add(
        _ time: Double, kind: ResourceKind?, variant: Int? = nil, rendition: Int? = nil, copy: String? = nil,
        msn: Int? = nil, part: Int? = nil, tag: String, file: String, status: Int?,
        ending: RequestRecord.Ending = .complete, duration: Double = 0.04, actions: [RequestRecord.Action]? = nil
    ) -> UInt64 {
        let id = UInt64(records.count + 1)
        let faults = actions ?? (status.map { $0 >= 400 ? [RequestRecord.Action(.status($0), rule: "test/rule")] : [] } ?? [])
        records.append(RequestRecord(
            id: id, time: at(time), session: session, client: "192.168.1.20:51234", method: "GET",
            path: "/s/\(session)/\(tag)/\(Self.origin)/\(file)", kind: kind, variant: variant, rendition: rendition,
            copy: copy, msn: msn, part: part, matchedRules: faults.isEmpty ? [] : ["test/rule"], actions: faults,
            status: status, bytesSent: status == 200 ? 1000 : 0, ending: ending, duration: duration))
        return id
    }
}

func rounded(_ value: Double) -> Double { (value * 10).rounded() / 10 }
