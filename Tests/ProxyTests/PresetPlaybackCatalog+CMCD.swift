import Testing

/// The buffer-aware presets (`cmcd-*`) match on the CMCD a player sends. ffmpeg sends none: for it
/// the preset must change nothing (no request faulted, the whole VOD played). hls.js sends CMCD
/// (the driver turns its `cmcd` config on): the fault reaches it when it says what the rule waits for.
extension PresetPlaybackCatalog {
    static let cmcdPlans: [String: PresetPlan] = [
        // hls.js marks its first fragments su (startup): the first two answer 503, it retries.
        "cmcd-startup-503": PresetPlan(
            stream: vodTS, ffmpeg: untouchedWithoutCMCD,
            hlsjs: HlsjsPlan { log, faults in
                PresetChecks.expectApplied("startup-segment-503", faults, kind: "segment")
                #expect(log.errors("fragLoadError").allSatisfy { $0.fatal == false }, "\(log.summary)")
                PresetChecks.expectEndedCleanly(log)
            }),
        // The preset's link (the top variant's BANDWIDTH less 30 %) runs hls.js's buffer down; the
        // segments it asks for with under 2 s of buffer answer 503, three times.
        "cmcd-low-buffer-503": PresetPlan(
            stream: vodTS, ffmpeg: untouchedWithoutCMCD,
            hlsjs: HlsjsPlan { log, faults in
                PresetChecks.expectApplied("segment-503-under-2s-buffer", faults, kind: "segment")
                PresetChecks.expectEndedCleanly(log)
            }),
        // Held only while hls.js says it starved (bs): whatever it met, it plays to the end.
        "cmcd-rebuffering-slow": PresetPlan(
            stream: vodTS, ffmpeg: untouchedWithoutCMCD,
            hlsjs: HlsjsPlan { log, faults in
                #expect(faults.events.allSatisfy { $0.matchedRules.allSatisfy { $0.hasPrefix("cmcd-rebuffering-slow/") } }, "\(faults.summary)")
                PresetChecks.expectEndedCleanly(log)
            }),
    ]

    static let untouchedWithoutCMCD = FFmpegPlan { run, faults in
        #expect(run.status == 0, "\(run.stderr)")
        #expect(faults.events.filter(\.isFaulted).isEmpty, "a player without CMCD was faulted: \(faults.summary)")
        #expect(run.frames == PresetChecks.wholeVODFrames, "frames: \(run.frames)")
    }
}
