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

    public init() {}

    /// The furthest position reached.
    public var position: Double? { progress.map(\.position).max() }
    /// Media advanced at some point (a frame decoded, a position past the first one).
    public var started: Bool { (position ?? 0) > 0 }
    /// The last error's message, for a reason.
    public var lastError: String? { errors.last.map { $0.message.isEmpty ? $0.kind : $0.message } }
}

/// The media position a player reported, and when (seconds since it started, when known).
public struct ProgressSample: Sendable, Equatable {
    public var time: Double?
    public var position: Double

    public init(time: Double?, position: Double) { self.time = time; self.position = position }
}
