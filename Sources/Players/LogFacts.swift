import Foundation
import PlayerReports

/// What a log parser read off a player's output, in the report's terms. Every native driver's
/// parser (`FFmpegLog`, `GStreamerLog`, `VLCLog`, `MPVLog`) returns one.
public struct LogFacts: Sendable, Equatable {
    public var errors: [PlayerReport.PlayerError] = []
    public var switches: [PlayerReport.LevelSwitch] = []
    /// Media position over time (seconds of media played, relative to the first one seen).
    public var progress: [ProgressSample] = []
    /// The player said it reached the end of the stream (EOS, "End of file", progress=end).
    public var ended = false
    /// The player said it gave up, in its words.
    public var fatal: String?
    /// Which engine actually ran, when the log tells ("hlsdemux2", "adaptive"), for the report's version.
    public var engine: String?
    /// Rebuffering the player announced after playback began (mpv `Enter`/`End buffering`,
    /// gst-launch `Buffering, setting pipeline to PAUSED` / `Done buffering`, VLC `PCR is called
    /// too late` / `Stream buffering done`): the spans that ended, in seconds since it started.
    public var rebuffers: [PlayerReport.Stall] = []
    /// When the rebuffering still going at the end of the log began.
    public var rebufferingSince: Double?

    public init() {}

    /// The furthest position reached.
    public var position: Double? { progress.map(\.position).max() }
    /// Media advanced at some point (a frame decoded, a position past the first one).
    public var started: Bool { (position ?? 0) > 0 }
    /// A rebuffering span began at `time` (ignored while one is open, or without a time).
    mutating func beginRebuffering(at time: Double?) {
        guard rebufferingSince == nil, let time else { return }
        rebufferingSince = time
    }

    /// The open rebuffering span ended at `time`; `duration` when the player said how long it
    /// waited (mpv), which then also places its start.
    mutating func endRebuffering(at time: Double?, duration: Double? = nil) {
        guard let since = rebufferingSince else { return }
        rebufferingSince = nil
        if let duration, duration >= 0, let time {
            rebuffers.append(.init(at: max(0, time - duration), duration: duration))
        } else {
            rebuffers.append(.init(at: since, duration: max(0, (time ?? since) - since)))
        }
    }

    /// The last error's message, for a reason.
    public var lastError: String? { errors.last.map { $0.message.isEmpty ? $0.kind : $0.message } }
}

/// The media position a player reported, and when (seconds since it started, when known).
public struct ProgressSample: Sendable, Equatable {
    public var time: Double?
    public var position: Double

    public init(time: Double?, position: Double) { self.time = time; self.position = position }
}
