import Testing

/// The content-steering presets (`steering-*`) on the demo's steering stream (the live TS stream on
/// pathways cdn-a and cdn-b). ffmpeg ignores content steering: it never asks for the steering
/// manifest and plays cdn-a's variants. hls.js loads the manifest every TTL and follows it.
extension PresetPlaybackCatalog {
    static let steering = "/steering/ts/master.m3u8"

    /// hls.js keeps playing cdn-a through a steering fault: no pathway change, no network error of
    /// the media, and `rule` applied to the steering manifest.
    static func hlsjsStaysOnCDNA(_ rule: String, reloadsAfterFault: ClosedRange<Int>? = nil) -> HlsjsPlan {
        HlsjsPlan(seconds: 26) { log, faults in
            PresetChecks.expectApplied(rule, faults, kind: "steering")
            #expect(!log.events.contains { $0.event == "levelsUpdated" }, "hls.js changed pathway:\n\(log.summary)")
            #expect(log.errors.filter { $0.type == "networkError" }.isEmpty, "\(log.summary)")
            #expect(faults.report.steering?.moves.isEmpty == true, "\(faults.report.verdict)")
            if let reloadsAfterFault, let first = faults.matching(rule: rule).first {
                let later = (faults.report.steering?.reloads ?? []).filter { $0 > first.id }.count
                #expect(reloadsAfterFault.contains(later), "\(later) manifest requests after the first fault: \(faults.report.verdict)")
            }
            PresetChecks.expectLivePlayback(log)
        }
    }

    /// hls.js moves its levels to cdn-b and goes on playing there.
    static func hlsjsMovesToCDNB(_ rule: String, kind: String) -> HlsjsPlan {
        HlsjsPlan(seconds: 26) { log, faults in
            PresetChecks.expectApplied(rule, faults, kind: kind)
            #expect(log.events.contains { $0.event == "levelsUpdated" && $0.pathway == "cdn-b" }, "\(log.summary)")
            #expect(faults.report.steering?.moves.map(\.to) == ["cdn-b"], "\(faults.report.verdict)")
            PresetChecks.expectLivePlayback(log)
        }
    }

    static let steeringPlans: [String: PresetPlan] = [
        "steering-server-503": PresetPlan(
            stream: steering, ffmpeg: ffmpegNeverReaches("steering-503"), hlsjs: hlsjsStaysOnCDNA("steering-503", reloadsAfterFault: 1...5)),
        // hls.js 1.6.15 never asks again after a 410, nor (against the spec) after a 429.
        "steering-server-gone-410": PresetPlan(
            stream: steering, ffmpeg: ffmpegNeverReaches("steering-gone"), hlsjs: hlsjsStaysOnCDNA("steering-gone", reloadsAfterFault: 0...0)),
        "steering-server-429": PresetPlan(
            stream: steering, ffmpeg: ffmpegNeverReaches("steering-429"), hlsjs: hlsjsStaysOnCDNA("steering-429", reloadsAfterFault: 0...0)),
        "steering-server-hang": PresetPlan(
            stream: steering, ffmpeg: ffmpegNeverReaches("steering-hang"), hlsjs: hlsjsStaysOnCDNA("steering-hang")),
        "steering-malformed": PresetPlan(
            stream: steering, ffmpeg: ffmpegNeverReaches("steering-cut"), hlsjs: hlsjsStaysOnCDNA("steering-cut", reloadsAfterFault: 1...4)),
        "steering-reload-uri-nowhere": PresetPlan(
            stream: steering, ffmpeg: ffmpegNeverReaches("reload-nowhere"), hlsjs: hlsjsStaysOnCDNA("reload-nowhere", reloadsAfterFault: 1...4)),
        "steering-ttl-storm": PresetPlan(
            stream: steering, ffmpeg: ffmpegNeverReaches("ttl-1"),
            hlsjs: HlsjsPlan(seconds: 26) { log, faults in
                // TTL 1: about one reload a second (the first manifest is the first fault).
                let loads = log.events.filter { $0.event == "steeringManifestLoaded" }
                #expect(loads.count >= 15, "\(loads.count) manifests loaded:\n\(log.summary)")
                #expect(loads.allSatisfy { $0.ttl == 1 }, "\(log.summary)")
                #expect(faults.report.steering?.moves.isEmpty == true, "\(faults.report.verdict)")
                PresetChecks.expectLivePlayback(log)
            }),
        "steering-pathway-removed": PresetPlan(
            stream: steering, ffmpeg: ffmpegNeverReaches("only-cdn-b"), hlsjs: hlsjsMovesToCDNB("only-cdn-b", kind: "steering")),
        // ffmpeg plays cdn-a's variants and meets the outage; it never moves to cdn-b.
        "steering-pathway-down": PresetPlan(
            stream: steering,
            ffmpeg: FFmpegPlan(seconds: 30) { run, faults in
                #expect(run.mentions("HTTP error 503"), "\(run.stderr)")
                #expect(run.frames < 30 * 25, "frames: \(run.frames)")
                #expect(!faults.matching(rule: "cdn-a-down").isEmpty, "\(faults.summary)")
                #expect(faults.report.steering?.moves.isEmpty == true, "\(faults.report.verdict)")
            },
            hlsjs: hlsjsMovesToCDNB("cdn-a-down", kind: "media")),
    ]
}
