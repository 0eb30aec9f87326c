import Foundation
import Testing

/// Presets in rules/ played through the proxy with ffmpeg and with hls.js (headless Chromium),
/// each by its `Players` driver against its own demo origin and session (`/s/<id>+<preset>/…`),
/// asserting what the player logged. Players run two at a time (`PresetPlayback.slots`).
///
/// By default each player plays its cells of `PresetPlaybackCatalog.ciCells`: every fault family
/// once per player (docs/testing.md lists them by family). `PRESET_PLAYBACK=all` plays every
/// preset with both; `PRESET_PLAYBACK_ONLY=gap,status-503` a few. `PRESET_PLAYBACK_CONTROL=1`
/// plays the same URLs without the preset: every case must then fail, which shows the checks
/// depend on the preset (see rules/README.md).
@Suite struct PresetPlaybackTests {
    static let presets = PresetPlayback.presetNames()
    static let control = ProcessInfo.processInfo.environment["PRESET_PLAYBACK_CONTROL"] == "1"

    @Test func everyPresetHasAPlaybackPlan() {
        #expect(Self.presets.count >= 30, "presets found: \(Self.presets)")
        for preset in Self.presets {
            #expect(PresetPlaybackCatalog.plans[preset] != nil, "no playback plan for preset \(preset)")
        }
        for preset in PresetPlaybackCatalog.plans.keys {
            #expect(Self.presets.contains(preset), "a playback plan for a preset that does not exist: \(preset)")
        }
    }

    /// The CI cells name existing presets and give each player exactly one preset of every
    /// fault family it supports.
    @Test func theCICellsGiveEachPlayerEveryFaultFamilyOnce() {
        let cells = PresetPlaybackCatalog.ciCells
        for cell in cells {
            #expect(Self.presets.contains(cell.preset), "a CI cell for a preset that does not exist: \(cell.preset)")
        }
        for player in PresetPlaybackCatalog.Player.allCases {
            let families = cells.filter { $0.player == player }.map(\.family)
            let supported = PresetPlaybackCatalog.Family.allCases.filter { $0.players.contains(player) }
            #expect(families.sorted { $0.rawValue < $1.rawValue } == supported.sorted { $0.rawValue < $1.rawValue },
                    "\(player) plays \(families.map(\.rawValue))")
        }
    }

    @Test(.enabled(if: PresetPlayback.ffmpegInstalled, "ffmpeg is not installed"), arguments: PresetPlayback.selectedPresetNames(for: .ffmpeg))
    func ffmpeg(preset: String) async throws {
        let plan = try #require(PresetPlaybackCatalog.plans[preset], "no playback plan for \(preset)")
        try await PresetPlayback.requireReady(PresetPlayback.ffmpegAvailability, "ffmpeg")
        try await PresetPlayback.slots.run {
            try await PresetPlayback.withProxy { proxy in
                let session = "ffmpeg-\(preset)"
                let url = PresetPlayback.deviceURL(proxy, session: session, preset: Self.control ? nil : preset, stream: plan.stream)
                let run = try await PresetPlayback.playFFmpeg(url, plan: plan.ffmpeg, live: plan.isLive)
                let faults = PresetPlayback.faultsAndReport(proxy, session: session)
                await proxy.stop()
                plan.ffmpeg.check(run, faults)
            }
        }
    }

    @Test(.enabled(if: PresetPlayback.browserToolsPresent, "Chromium, chromedriver or python3 is missing"),
          arguments: PresetPlayback.selectedPresetNames(for: .hlsjs))
    func hlsjs(preset: String) async throws {
        let plan = try #require(PresetPlaybackCatalog.plans[preset], "no playback plan for \(preset)")
        try await PresetPlayback.requireReady(PresetPlayback.hlsjsAvailability, "hls.js")
        try await PresetPlayback.slots.run {
            try await PresetPlayback.withProxy { proxy in
                let session = "hlsjs-\(preset)"
                let presets = ([preset] + plan.hlsjs.extraPresets).joined(separator: "+")
                let url = PresetPlayback.deviceURL(proxy, session: session, preset: Self.control ? nil : presets, stream: plan.stream)
                let log = try await PresetPlayback.playHlsjs(url, plan: plan.hlsjs, live: plan.isLive)
                let faults = PresetPlayback.faultsAndReport(proxy, session: session)
                await proxy.stop()
                if let log { plan.hlsjs.check(log, faults) }
            }
        }
    }
}
