import Foundation
import Players
import Records
import Testing

/// The `link-*` presets: the session lives on a link (docs/link.md). Every check first asks that
/// the session's responses went over the link (their records say what it did to them): played
/// without the preset (`PRESET_PLAYBACK_CONTROL=1`) they did not, and every case fails.
extension PresetPlaybackCatalog {
    static let linkPlans: [String: PresetPlan] = [
        // ffmpeg reads variant 2 (653 kbit/s) through 400 kbit/s with 2 s per request: it cannot
        // keep up with the live edge, so in its time it decodes fewer frames than it plays.
        "link-slow-3g": PresetPlan(
            stream: liveTS,
            ffmpeg: FFmpegPlan(seconds: 24, limit: 120) { run, faults in
                PresetChecks.expectLinked(faults, waited: true)
                #expect(run.frames > 0, "frames: \(run.frames)\n\(run.stderr)")
            },
            hlsjs: HlsjsPlan(seconds: 40) { log, faults in
                PresetChecks.expectLinked(faults, waited: true)
                #expect(log.switches.contains { $0 <= 1 }, "never below the top level:\n\(log.summary)")
            }),
        "link-fast-4g": PresetPlan(
            stream: liveTS,
            ffmpeg: FFmpegPlan(seconds: 16) { run, faults in
                PresetChecks.expectLinked(faults)
                #expect(run.frames == 16 * 25, "frames: \(run.frames)\n\(run.stderr)")
            },
            hlsjs: HlsjsPlan(seconds: 30) { log, faults in
                PresetChecks.expectLinked(faults)
                PresetChecks.expectLivePlayback(log)
                #expect(log.events.contains { $0.event == "fragLoaded" && $0.level == 2 }, "never on the top level:\n\(log.summary)")
            }),
        "link-drop-below-lowest": PresetPlan(
            stream: liveTS,
            ffmpeg: FFmpegPlan(seconds: 24, limit: 120) { run, faults in
                PresetChecks.expectLinked(faults, waited: true)
                #expect(run.frames > 0, "frames: \(run.frames)\n\(run.stderr)")
            },
            // The link falls at 15 s and is back at 35 s (of the link, which starts when the master
            // has been fetched). Observed (`hlschaos matrix`, 28 Nov): hls.js on level 2 goes to
            // level 0 2.5 s after the fall, stalls twice (7.6 s in all) and goes to level 1 20.8 s
            // after the recovery, about 56 s into the link: 75 s leaves room for a slower machine.
            hlsjs: HlsjsPlan(seconds: 75) { log, faults in
                PresetChecks.expectLinked(faults, waited: true)
                let switches = log.switches
                let down = switches.firstIndex(of: 0)
                #expect(down != nil, "no switch to level 0:\n\(log.summary)")
                if let down { #expect(switches[(down + 1)...].contains { $0 >= 1 }, "did not move back up:\n\(log.summary)") }
                #expect(log.fatalError == nil, "fatal:\n\(log.summary)")
            }),
        "link-square-wave": PresetPlan(
            stream: liveTS,
            ffmpeg: FFmpegPlan(seconds: 24, limit: 120) { run, faults in
                PresetChecks.expectLinked(faults)
                #expect(run.frames > 0, "frames: \(run.frames)\n\(run.stderr)")
            },
            hlsjs: HlsjsPlan(seconds: 60) { log, faults in
                PresetChecks.expectLinked(faults)
                #expect(Set(log.switches).count >= 2, "did not follow the link:\n\(log.summary)")
                #expect(log.fatalError == nil, "fatal:\n\(log.summary)")
            }),
        "link-ramp-down": PresetPlan(
            stream: liveTS,
            ffmpeg: FFmpegPlan(seconds: 24, limit: 120) { run, faults in
                PresetChecks.expectLinked(faults)
                #expect(run.frames > 0, "frames: \(run.frames)\n\(run.stderr)")
            },
            hlsjs: HlsjsPlan(seconds: 50) { log, faults in
                PresetChecks.expectLinked(faults, waited: true)
                #expect(log.switches.contains { $0 <= 1 }, "never stepped down:\n\(log.summary)")
            }),
        "link-outage-10s": PresetPlan(
            stream: liveTS,
            ffmpeg: FFmpegPlan(seconds: 30, limit: 120) { run, faults in
                PresetChecks.expectLinked(faults, stalled: true)
                #expect(run.frames > 0, "frames: \(run.frames)\n\(run.stderr)")
            },
            // hls.js holds 6–7 s of live buffer: the 10 s outage outlasts it and the report has the
            // rebuffer, a `waiting` → `playing` span of a few seconds (3.4 s measured). Generous
            // bounds: whether it stalls and for roughly how long, not how fast this machine is.
            hlsjs: HlsjsPlan(seconds: 45) { log, faults in
                PresetChecks.expectLinked(faults, stalled: true)
                PresetChecks.expectLivePlayback(log)
                let stalls = BrowserReport.stalls(in: log)
                #expect(stalls.contains { (1.5...12).contains($0.duration) }, "no stall of 1.5–12 s: \(stalls)\n\(log.summary)")
            }),
        "link-lossy": PresetPlan(
            stream: liveTS,
            ffmpeg: FFmpegPlan(seconds: 24) { run, faults in
                PresetChecks.expectLinked(faults, stalled: true)
                #expect(run.frames > 0, "frames: \(run.frames)\n\(run.stderr)")
            },
            hlsjs: HlsjsPlan(seconds: 40) { log, faults in
                PresetChecks.expectLinked(faults, stalled: true)
                PresetChecks.expectLivePlayback(log)
            }),
        // Every response waits 500 ms (± 50 ms) before its head: the records say so.
        "link-high-latency": PresetPlan(
            stream: liveTS,
            ffmpeg: FFmpegPlan(seconds: 16) { run, faults in
                PresetChecks.expectLinked(faults, latencyAtLeast: 0.45)
                #expect(run.frames > 0, "frames: \(run.frames)\n\(run.stderr)")
            },
            hlsjs: HlsjsPlan(seconds: 30) { log, faults in
                PresetChecks.expectLinked(faults, latencyAtLeast: 0.45)
                PresetChecks.expectLivePlayback(log)
            }),
        "link-commute": PresetPlan(
            stream: liveTS,
            ffmpeg: FFmpegPlan(seconds: 24, limit: 140) { run, faults in
                PresetChecks.expectLinked(faults)
                #expect(run.frames > 0, "frames: \(run.frames)\n\(run.stderr)")
            },
            hlsjs: HlsjsPlan(seconds: 70) { log, faults in
                PresetChecks.expectLinked(faults, waited: true)
                #expect(log.switches.contains { $0 <= 1 }, "never went down for the tunnel:\n\(log.summary)")
            }),
    ]
}

extension PresetChecks {
    /// The session's responses went over its link: their records say what it did to them.
    static func expectLinked(
        _ faults: Faults, waited: Bool = false, stalled: Bool = false, latencyAtLeast: Double? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let linked = faults.events.compactMap(\.link)
        #expect(!linked.isEmpty, "no response went over a link:\n\(faults.summary)", sourceLocation: sourceLocation)
        if waited { #expect(linked.contains { $0.waited > 0 }, "no response waited for the link's capacity", sourceLocation: sourceLocation) }
        if stalled { #expect(linked.contains { $0.stalled > 0 }, "no response was stalled by the link", sourceLocation: sourceLocation) }
        if let latencyAtLeast {
            #expect(linked.allSatisfy { $0.latency >= latencyAtLeast }, "latencies: \(linked.map(\.latency))", sourceLocation: sourceLocation)
        }
    }
}
