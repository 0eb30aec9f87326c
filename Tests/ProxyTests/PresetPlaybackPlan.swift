import Foundation
import Players
import Records
import Proxy
import Testing

/// How one preset is played by each player and what the player must have logged.
/// The checks are what ffmpeg 5.1 and hls.js 1.6 were observed to do (rules/README.md,
/// "Observed player reactions"); where a player cannot show a preset's effect, the check is
/// on the proxy's fault events plus what the player did.
struct PresetPlan: Sendable {
    /// Demo stream the preset is played on, e.g. "/vod/ts/master.m3u8".
    var stream: String
    var ffmpeg: FFmpegPlan
    var hlsjs: HlsjsPlan

    /// A live stream (live, LL or steering): the players' runs are live runs (hls.js plays it at 1×).
    var isLive: Bool { stream.hasPrefix("/live/") || stream.hasPrefix("/ll/") || stream.hasPrefix("/steering/") }
}

/// How `FFmpegDriver` plays the preset.
struct FFmpegPlan: Sendable {
    /// Variant index read (`FFmpegDriver.program`: its video and audio, `-map 0:p:N:v:0?
    /// -map 0:p:N:a:0?`); nil lets ffmpeg pick (the highest resolution and the best audio).
    var program: Int? = 2
    /// `-t` (`FFmpegDriver.duration`): how much media to read (live streams never end by themselves).
    var seconds: Int? = nil
    /// `-rw_timeout` in seconds: how long ffmpeg waits on a silent connection (short only for the
    /// hang presets; elsewhere generous, so a busy machine is not mistaken for a fault).
    var rwTimeout: Int = 20
    /// The watchdog (`PlayRequest.timeout`): 150 s, which every run that ends by itself is well
    /// within; shorter for a preset that leaves ffmpeg stuck once the checked lines are out.
    var limit: Double = 150
    var check: @Sendable (FFmpegRun, Faults) -> Void
}

/// How `BrowserDriver.hlsjs` plays the preset: a VOD at 8×, a live stream at 1×.
struct HlsjsPlan: Sendable {
    /// Presets added to the device URL after the tested one (`/s/<id>+<preset>+<extra>/…`),
    /// to steer hls.js's ABR onto the variant the preset targets.
    var extraPresets: [String] = []
    /// The run's limit (`PlayRequest.timeout`): the harness stops at `ended`, at the first fatal
    /// error, or this many seconds after the page loaded. A live plan plays for exactly as long
    /// as the preset's window needs; a VOD plan's limit is generous, the run ends well before.
    var seconds: Double = 60
    var check: @Sendable (BrowserLog, Faults) -> Void
}

/// The faults the proxy applied to the player's session.
struct Faults: Sendable {
    var events: [RequestRecord]
    /// The reaction report over every record of the player's session.
    var report: ReactionReport = ReactionReport.analyze([], now: Date())

    func matching(rule: String) -> [RequestRecord] { events.filter { $0.matchedRules.contains { $0.hasSuffix("/" + rule) } } }
    func segments(rule: String) -> [RequestRecord] { matching(rule: rule).filter { $0.kind == .segment } }
    func msns(rule: String, kind: String = "segment") -> Set<Int> {
        Set(matching(rule: rule).filter { $0.kind?.rawValue == kind }.compactMap(\.msn))
    }
    /// One line per faulted record: what was asked, what the rule did, and how the response ended
    /// (when, how many bytes, how long), so a failure shows the proxy's side beside the player's log.
    var summary: String {
        events.map { record in
            "\(record.time.formatted(.iso8601.time(includingFractionalSeconds: true))) #\(record.id) \(record.client) "
                + "\(record.kind?.rawValue ?? "-") v=\(record.variant.map(String.init) ?? "-") msn=\(record.msn.map(String.init) ?? "-") "
                + "\(record.matchedRules) \(record.actions.map(\.words)) → \(record.status.map(String.init) ?? "-") "
                + "\(record.bytesSent) B \(record.ending) in \(String(format: "%.3f", record.duration)) s"
        }.joined(separator: "\n")
    }
}
