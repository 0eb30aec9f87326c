import Testing

/// The LL presets (`ll-*`) on the demo's LL stream. ffmpeg reads it as ordinary live (whole
/// segments, plain reloads), so none of their rules is ever reached; hls.js plays it as LL.
extension PresetPlaybackCatalog {
    static let lowLatency = "/ll/master.m3u8"

    /// ffmpeg plays 20 s of the stream without meeting the fault: it ignores what the rule targets
    /// (LL-HLS parts and blocking reloads, a content-steering manifest).
    static func ffmpegNeverReaches(_ rule: String) -> FFmpegPlan {
        FFmpegPlan(seconds: 20) { run, faults in
            #expect(run.status == 0, "\(run.stderr)")
            #expect(faults.matching(rule: rule).isEmpty, "ffmpeg requested what \(rule) targets:\n\(faults.summary)")
            #expect(run.frames > 15 * 25, "frames: \(run.frames)")
        }
    }

    /// ffmpeg plays 20 s of LL playlists damaged by `rule` (it ignores the LL tags) without an error.
    static func ffmpegPlaysOn(_ rule: String) -> FFmpegPlan {
        FFmpegPlan(seconds: 20) { run, faults in
            #expect(run.status == 0, "\(run.stderr)")
            PresetChecks.expectApplied(rule, faults, kind: "media")
            #expect(run.frames > 15 * 25, "frames: \(run.frames)")
        }
    }

    /// hls.js plays on through `rule` (applied to `kind` requests) without a load error.
    static func hlsjsPlaysOn(_ rule: String, kind: String = "media") -> HlsjsPlan {
        HlsjsPlan(seconds: 24) { log, faults in
            #expect(log.errors.filter { $0.type == "networkError" }.isEmpty, "\(log.summary)")
            PresetChecks.expectApplied(rule, faults, kind: kind)
            PresetChecks.expectLivePlayback(log)
        }
    }

    /// The `lowLatency` damages: applied to every media playlist, so ffmpeg and hls.js both meet them.
    static let lowLatencyDamagePlans: [String: PresetPlan] = [
        "ll-part-hold-back-short": PresetPlan(stream: lowLatency, ffmpeg: ffmpegPlaysOn("part-hold-back-short"), hlsjs: hlsjsPlaysOn("part-hold-back-short")),
        "ll-rendition-reports-behind": PresetPlan(
            stream: lowLatency, ffmpeg: ffmpegPlaysOn("rendition-reports-behind"), hlsjs: hlsjsPlaysOn("rendition-reports-behind")),
        "ll-skip-too-many": PresetPlan(stream: lowLatency, ffmpeg: ffmpegPlaysOn("skip-too-many"), hlsjs: hlsjsPlaysOn("skip-too-many")),
        "ll-hint-never-published": PresetPlan(
            stream: lowLatency, ffmpeg: ffmpegPlaysOn("hint-never-published"), hlsjs: hlsjsPlaysOn("hint-never-published")),
        // Without parts at the edge hls.js waits for whole segments: stalls, but no load error.
        "ll-parts-dropped": PresetPlan(stream: lowLatency, ffmpeg: ffmpegPlaysOn("parts-dropped"), hlsjs: hlsjsPlaysOn("parts-dropped")),
        // hls.js honours GAP=YES: fragGap, no request for the marked part.
        "ll-part-gap": PresetPlan(
            stream: lowLatency, ffmpeg: ffmpegPlaysOn("part-gap"),
            hlsjs: HlsjsPlan(seconds: 24) { log, faults in
                #expect(log.errors("fragGap").contains { $0.fatal == false }, "\(log.summary)")
                PresetChecks.expectApplied("part-gap", faults, kind: "media")
                PresetChecks.expectLivePlayback(log)
            }),
        // ffmpeg does not know EXT-X-SKIP: it numbers the listed segments from the media
        // sequence and jumps ahead. hls.js asks for delta updates anyway.
        "ll-skip-unasked": PresetPlan(
            stream: lowLatency,
            ffmpeg: FFmpegPlan(seconds: 20) { run, faults in
                #expect(run.status == 0, "\(run.stderr)")
                PresetChecks.expectApplied("skip-unasked", faults, kind: "media")
                #expect(faults.report.skipped.map { $0.to - $0.from + 1 }.reduce(0, +) >= 4, "nothing skipped:\n\(faults.summary)")
            },
            hlsjs: hlsjsPlaysOn("skip-unasked")),
    ]

    static let lowLatencyPlans: [String: PresetPlan] = lowLatencyDamagePlans.merging(lowLatencyFaultPlans) { _, new in new }

    static let lowLatencyFaultPlans: [String: PresetPlan] = [
        "ll-part-404": PresetPlan(
            stream: lowLatency,
            ffmpeg: ffmpegNeverReaches("top-parts-404"),
            // A part of level 2 answers 404: no retry, a switch to level 1.
            hlsjs: HlsjsPlan(seconds: 24) { log, faults in
                let errors = log.errors("fragLoadError")
                #expect(errors.contains { $0.code == 404 && $0.level == 2 && $0.fatal == false }, "\(log.summary)")
                PresetChecks.expectApplied("top-parts-404", faults, kind: "part")
                PresetChecks.expectSwitchedDownAfter(errors.first, log)
                PresetChecks.expectLivePlayback(log)
            }),
        "ll-part-503": PresetPlan(
            stream: lowLatency,
            ffmpeg: ffmpegNeverReaches("top-parts-503"),
            // The part is retried (503 is temporary) until the window ends; no fatal error.
            hlsjs: HlsjsPlan(seconds: 24) { log, faults in
                let errors = log.errors("fragLoadError").filter { $0.code == 503 }
                #expect(errors.count >= 2 && errors.allSatisfy { $0.fatal == false }, "\(log.summary)")
                PresetChecks.expectApplied("top-parts-503", faults, kind: "part")
                PresetChecks.expectLivePlayback(log)
            }),
        "ll-part-late": PresetPlan(
            stream: lowLatency,
            ffmpeg: ffmpegNeverReaches("top-parts-late"),
            // Late parts are no error: no load error of any kind, and no fatal one.
            hlsjs: hlsjsPlaysOn("top-parts-late", kind: "part")),
        "ll-blocking-reload-503": PresetPlan(
            stream: lowLatency,
            ffmpeg: ffmpegNeverReaches("blocking-503"),
            // Level and audio-track load errors (503), retried; the audio one turns fatal in
            // 3 runs of 5 (no alternate audio), so fatality is not checked.
            hlsjs: HlsjsPlan(seconds: 24) { log, faults in
                #expect(log.errors("levelLoadError").contains { $0.code == 503 } || log.errors("audioTrackLoadError").contains { $0.code == 503 },
                        "\(log.summary)")
                PresetChecks.expectApplied("blocking-503", faults, kind: "media")
                #expect(log.fatalError.map { $0.details == "audioTrackLoadError" } ?? true, "an unexpected fatal error:\n\(log.summary)")
            }),
        "ll-blocking-reload-held": PresetPlan(
            stream: lowLatency,
            ffmpeg: ffmpegNeverReaches("blocking-held-8s"),
            // The held reload times out in hls.js (levelLoadTimeOut, non-fatal) and is asked again.
            hlsjs: HlsjsPlan(seconds: 24) { log, faults in
                #expect(log.errors("levelLoadTimeOut").contains { $0.fatal == false } || log.errors("audioTrackLoadTimeOut").contains { $0.fatal == false },
                        "\(log.summary)")
                PresetChecks.expectApplied("blocking-held-8s", faults, kind: "media")
                PresetChecks.expectLivePlayback(log)
            }),
        "ll-blocking-reload-ignored": PresetPlan(
            stream: lowLatency,
            ffmpeg: ffmpegNeverReaches("directives-ignored"),
            // Answered at once, the reloads go on and so does playback: no network error.
            hlsjs: hlsjsPlaysOn("directives-ignored")),
    ]
}
