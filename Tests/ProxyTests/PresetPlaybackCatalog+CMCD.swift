import Testing

/// The buffer-aware presets (`cmcd-*`) match on the CMCD a player sends. Neither ffmpeg nor the
/// hls.js driver sends CMCD yet (the driver's `cmcd` config is issue 37 item 8), so for both the
/// preset must change nothing: no request faulted, the whole VOD played. When the driver turns
/// CMCD on, the hls.js plans are to check the fault instead.
extension PresetPlaybackCatalog {
    static let cmcdPlans: [String: PresetPlan] = Dictionary(uniqueKeysWithValues: [
        "cmcd-low-buffer-503", "cmcd-startup-503", "cmcd-rebuffering-slow",
    ].map { ($0, untouchedWithoutCMCD) })

    static let untouchedWithoutCMCD = PresetPlan(
        stream: vodTS,
        ffmpeg: FFmpegPlan { run, faults in
            #expect(run.status == 0, "\(run.stderr)")
            #expect(faults.events.isEmpty, "a player without CMCD was faulted: \(faults.summary)")
            #expect(run.frames == PresetChecks.wholeVODFrames, "frames: \(run.frames)")
        },
        hlsjs: HlsjsPlan { log, faults in
            #expect(faults.events.isEmpty, "a player without CMCD was faulted: \(faults.summary)")
            PresetChecks.expectEndedCleanly(log)
        })
}
