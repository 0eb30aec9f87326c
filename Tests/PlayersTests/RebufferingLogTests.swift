import Foundation
import PlayerReports
import Testing
@testable import Players

/// The rebuffering each native player announces, read from excerpts of real runs: the demo's live
/// stream through the proxy with `+link-outage-10s` (4 Mbit/s, down from 20 s to 30 s of the
/// session), each line with the second it arrived (`TimedExcerpt`), long lines shortened.
@Suite struct RebufferingLogTests {
    // MARK: mpv 0.35.1, live at the clock's pace (`--msg-level=all=v`, status line on stderr)

    static let mpvOutage = TimedExcerpt("""
        0.51 [lavf] Found 'hls' at score=100 size=1347.
        0.97 hlschaos-position=0.080000
        1.32  (+) Video --vid=3 (h264 960x540 25.000fps) (653 kbps)
        24.62 hlschaos-position=23.720000
        24.66 [cplayer] Enter buffering (buffer went from 100% -> 0%) [0.000000s].
        30.15 [cplayer] Still buffering (buffer went from 0% -> 4%) [0.040000s].
        30.16 [cplayer] Still buffering (buffer went from 8% -> 0%) [0.000000s].
        30.31 [cplayer] Still buffering (buffer went from 11% -> 75%) [0.754667s].
        30.31 hlschaos-position=23.760000
        30.63 [cplayer] End buffering (waited 5.972012 secs) [3.794667s].
        30.66 hlschaos-position=23.800000
        31.40 hlschaos-position=24.560000
        """)

    @Test func mpvReportsItsCacheWaitWithTheDurationItMeasured() {
        let facts = MPVLog.parse(Self.mpvOutage.lines)
        // The span ends when `End buffering` arrived and lasts what mpv says it waited.
        #expect(facts.rebuffers.count == 1)
        #expect(abs((facts.rebuffers.first?.at ?? 0) - 24.658) < 0.001, "\(facts.rebuffers)")
        #expect(facts.rebuffers.first?.duration == 5.972012)
        #expect(facts.rebufferingSince == nil)
    }

    /// mpv waiting for its cache before the first frame is startup, not a stall.
    @Test func mpvWaitingBeforeTheFirstPositionIsStartup() {
        let lines = TimedExcerpt("""
            0.40 [cplayer] Enter buffering (buffer went from 100% -> 0%) [0.000000s].
            0.90 [cplayer] End buffering (waited 0.500000 secs) [1.000000s].
            0.97 hlschaos-position=0.080000
            """).lines
        #expect(MPVLog.parse(lines).rebuffers.isEmpty)
    }

    @Test func mpvStillWaitingAtTheEndLastsUntilTheEnd() {
        let lines = Array(Self.mpvOutage.lines.prefix { !$0.text.contains("End buffering") })
        let facts = MPVLog.parse(lines)
        #expect(facts.rebuffers.isEmpty)
        #expect(facts.rebufferingSince == 24.66)
        #expect(Stalls.announced(facts, end: 40, stuck: nil) == [.init(at: 24.66, duration: 15.34)])
    }

    /// Untimed, mpv empties its cache as soon as a segment arrives: live runs play at the clock's
    /// pace, VOD runs stay untimed (and keep stalls read off progress).
    @Test func mpvPlaysLiveAtTheClocksPace() {
        let driver = MPVDriver()
        #expect(!driver.arguments(url: "u", live: true).contains("--untimed"))
        #expect(!driver.arguments(url: "u", live: true).contains("--ao-null-untimed"))
        #expect(driver.arguments(url: "u", live: false).contains("--untimed"))
        #expect(driver.arguments(url: "u", live: true).last == "u")
    }

    // MARK: GStreamer 1.22.0, live with sync=true (gst-launch's messages and the sink's last-message on stdout)

    /// playbin3 + hlsdemux2 on the demo's `/ll/` stream: gst-launch pauses for buffering once
    /// before the first frame (startup) and once when the link goes down.
    static let hlsdemux2Outage = TimedExcerpt("""
        0.00 Setting pipeline to PAUSED ...
        0.37 buffering... 100%
        0.37 Setting pipeline to PLAYING ...
        0.47 buffering... 0%
        0.47 Buffering, setting pipeline to PAUSED ...
        1.11 buffering... 100%
        1.11 Done buffering, setting pipeline to PLAYING ...
        1.89 /GstPlayBin3:playbin3-0/GstPlaySink:playsink/GstBin:vbin/GstFakeSink:hlschaos_video: last-message = chain   ******* (hlschaos_video:sink) (146016 bytes, dts: none, pts: 0:00:28.080000000, duration: 0:00:00.040000000, offset: -1, offset_end: -1, flags: 00000040 discont , meta: none) 0x7f9a3413b6c0
        26.18 /GstPlayBin3:playbin3-0/GstPlaySink:playsink/GstBin:vbin/GstFakeSink:hlschaos_video: last-message = chain   ******* (hlschaos_video:sink) (777600 bytes, dts: none, pts: 0:00:53.360000000, duration: 0:00:00.040000000, offset: -1, offset_end: -1, flags: 00000000 , meta: none) 0x7f9a3413b6c0
        26.19 buffering... 0%
        26.19 Buffering, setting pipeline to PAUSED ...
        26.20 /GstPlayBin3:playbin3-0/GstPlaySink:playsink/GstBin:vbin/GstFakeSink:hlschaos_video: last-message = preroll   *******
        30.45 buffering... 1%
        32.21 buffering... 98%
        32.21 buffering... 100%
        32.21 Done buffering, setting pipeline to PLAYING ...
        32.26 /GstPlayBin3:playbin3-0/GstPlaySink:playsink/GstBin:vbin/GstFakeSink:hlschaos_video: last-message = chain   ******* (hlschaos_video:sink) (777600 bytes, dts: none, pts: 0:00:53.400000000, duration: 0:00:00.040000000, offset: -1, offset_end: -1, flags: 00000000 , meta: none) 0x7f9a3413b6c0
        """)

    @Test func gstreamerReportsEachPauseForBufferingAfterTheFirstFrame() {
        let parsed = GStreamerLog.parse(stdout: Self.hlsdemux2Outage.lines, stderr: [])
        #expect(parsed.facts.rebuffers.count == 1, "the pause at 0.47 s came before the first frame: \(parsed.facts.rebuffers)")
        #expect(parsed.facts.rebuffers.first?.at == 26.19)
        #expect(abs((parsed.facts.rebuffers.first?.duration ?? 0) - 6.02) < 0.001)
        #expect(parsed.playing)
    }

    /// playbin + legacy hlsdemux on `/live/ts`: a short pause while it switched variants (new
    /// queues), and the outage. Each line here as far as the next `\n` (gst-launch ends each
    /// progress report with `\r`, which the driver's reader also splits at): the message is found
    /// within either way.
    static let legacyOutage = TimedExcerpt("""
        2.69 buffering... 36%  buffering... 100%  Setting pipeline to PLAYING ...
        3.50 /GstPlayBin:playbin0/GstPlaySink:playsink/GstBin:vbin/GstFakeSink:hlschaos_video: last-message = chain   ******* (hlschaos_video:sink) (146016 bytes, dts: none, pts: 0:00:04.780000000, duration: 0:00:00.040000000, offset: -1, offset_end: -1, flags: 00000040 discont , meta: none) 0x7f1fa402bd8
        4.59 buffering... 4%  Buffering, setting pipeline to PAUSED ...
        4.95 buffering... 99%  buffering... 100%  Done buffering, setting pipeline to PLAYING ...
        25.90 /GstPlayBin:playbin0/GstPlaySink:playsink/GstBin:vbin/GstFakeSink:hlschaos_video: last-message = chain   ******* (hlschaos_video:sink) (777600 bytes, dts: none, pts: 0:00:29.020000000, duration: 0:00:00.040000000, offset: -1, offset_end: -1, flags: 00000000 , meta: none) 0x7f1fd806c240
        25.96 buffering... 7%  Buffering, setting pipeline to PAUSED ...
        30.27 buffering... 99%  buffering... 100%  Done buffering, setting pipeline to PLAYING ...
        30.29 /GstPlayBin:playbin0/GstPlaySink:playsink/GstBin:vbin/GstFakeSink:hlschaos_video: last-message = chain   ******* (hlschaos_video:sink) (777600 bytes, dts: none, pts: 0:00:29.060000000, duration: 0:00:00.040000000, offset: -1, offset_end: -1, flags: 00000000 , meta: none) 0x7f1fd806c240
        """)

    @Test func legacyHlsdemuxPausesAreSpansToo() {
        let rebuffers = GStreamerLog.parse(stdout: Self.legacyOutage.lines, stderr: []).facts.rebuffers
        #expect(rebuffers.map(\.at) == [4.59, 25.96], "\(rebuffers)")
        #expect(zip(rebuffers.map(\.duration), [0.36, 4.31]).allSatisfy { abs($0 - $1) < 0.001 }, "\(rebuffers)")
    }

    // MARK: VLC 3.0 (`-vv`, stderr), live at 1×

    /// The position stops moving at 24.01 s (the buffer's end); VLC says nothing until data comes
    /// back, finds its clock late, resets it and rebuffers.
    static let vlcOutage = TimedExcerpt("""
        1.34 [00007f6524001160] adaptive demux debug: cached.i_time (0) cur 0 rap start (pl 0/dmx 0) pos 0.000000
        3.09 [00007f652c000c90] main input debug: Buffering 0%
        3.56 [00007f652c000c90] main input debug: Stream buffering done (1040 ms in 50 ms)
        3.81 [00007f652c000c90] main input debug: Decoder wait done in 60 ms
        4.00 [00007f6524001160] adaptive demux debug: cached.i_time (5200666) cur 26640001 rap start (pl 4010666/dmx 25450001) pos 0.434814
        23.02 [00007f6524001160] adaptive demux debug: cached.i_time (27200666) cur 48640001 rap start (pl 4010666/dmx 25450001) pos 0.000000
        24.01 [00007f6524001160] adaptive demux debug: cached.i_time (27880666) cur 49320001 rap start (pl 4010666/dmx 25450001) pos 0.000000
        25.03 [00007f6524001160] adaptive demux debug: cached.i_time (27880666) cur 49320001 rap start (pl 4010666/dmx 25450001) pos 0.000000
        30.02 [00007f6524001160] adaptive demux debug: cached.i_time (27880666) cur 49320001 rap start (pl 4010666/dmx 25450001) pos 0.000000
        31.49 [00007f652c000c90] main input error: ES_OUT_SET_(GROUP_)PCR  is called too late (pts_delay increased to 1000 ms)
        31.54 [00007f652c000c90] main input debug: ES_OUT_RESET_PCR called
        31.55 [00007f652c000c90] main input debug: Buffering 0%
        31.81 [00007f652c000c90] main input debug: Buffering 100%
        31.82 [00007f652c000c90] main input debug: Stream buffering done (1040 ms in 0 ms)
        32.54 [00007f652c000c90] main input debug: Decoder wait done in 81 ms
        33.13 [00007f6524001160] adaptive demux debug: cached.i_time (29823999) cur 51263334 rap start (pl 4010666/dmx 25450001) pos 0.000000
        """)

    @Test func vlcRebuffersFromTheLastAdvanceToBufferingDone() {
        let facts = VLCLog.parse(Self.vlcOutage.lines).facts
        // The startup buffering (3.09–3.56 s) is not one: nothing had played.
        #expect(facts.rebuffers.count == 1, "\(facts.rebuffers)")
        #expect(facts.rebuffers.first?.at == 24.01)
        #expect(abs((facts.rebuffers.first?.duration ?? 0) - 7.81) < 0.001)
    }

    /// VLC found its clock late again before the position moved: the second span starts where the
    /// first ended, they do not overlap.
    @Test func aSecondVLCRebufferWithoutAdvanceStartsAfterTheFirst() {
        let again = TimedExcerpt("""
            32.60 [00007f652c000c90] main input error: ES_OUT_SET_(GROUP_)PCR  is called too late (pts_delay increased to 1106 ms)
            33.20 [00007f652c000c90] main input debug: Stream buffering done (1120 ms in 0 ms)
            """).lines
        let lines = Array(Self.vlcOutage.lines.prefix { !$0.text.contains("cached.i_time (29823999)") }) + again
        let rebuffers = VLCLog.parse(lines).facts.rebuffers
        #expect(rebuffers.count == 2, "\(rebuffers)")
        #expect(rebuffers.last?.at == 31.82)
        #expect(abs((rebuffers.last?.duration ?? 0) - 1.38) < 0.001, "\(rebuffers)")
    }

    // MARK: Stalls.announced

    @Test func aProgressStallNoSpanCoversIsKept() {
        var facts = LogFacts()
        facts.rebuffers = [.init(at: 5, duration: 2)]
        let stuck = PlayerReport.Stall(at: 30, duration: 10)
        #expect(Stalls.announced(facts, end: 40, stuck: stuck) == [.init(at: 5, duration: 2), stuck])
        // Covered by the last span (it ended after the progress stopped): not counted twice.
        facts.rebuffers = [.init(at: 29, duration: 5)]
        #expect(Stalls.announced(facts, end: 40, stuck: stuck) == [.init(at: 29, duration: 5)])
        // Two lines read in one poll: a pause too short to time is left out.
        facts.rebuffers = [.init(at: 6.023, duration: 0), .init(at: 25.483, duration: 4.807)]
        #expect(Stalls.announced(facts, end: 40, stuck: nil) == [.init(at: 25.483, duration: 4.807)])
                // An open span lasts until the end and stands for the stuck time.
        facts.rebuffers = []
        facts.rebufferingSince = 31
        #expect(Stalls.announced(facts, end: 40, stuck: stuck) == [.init(at: 31, duration: 9)])
    }
}

/// A log excerpt whose lines start with the second they arrived: `24.66 [cplayer] Enter buffering…`.
struct TimedExcerpt {
    let lines: [LogLine]

    init(_ text: String) {
        lines = text.split(separator: "\n").map { line in
            let time = line.prefix { $0 != " " }
            return LogLine(time: Double(time), String(line.dropFirst(time.count + 1)))
        }
    }
}
