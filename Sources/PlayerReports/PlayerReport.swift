import Foundation

/// What one player run produced, normalised across players: how it ended, what the player said
/// (errors with codes, stalls, level switches, the position it reached) and its raw log. The
/// verdict of `hlschaos run` reads this beside the proxy's request records.
public struct PlayerReport: Sendable, Codable, Equatable {
    public enum Outcome: String, Sendable, Codable, Equatable, CaseIterable {
        /// Played to the end (VOD), or for the whole run without giving up (live).
        case played
        /// The player reported a fatal error or exited with a failure; `reason` says which.
        case failed
        /// The player was still running but its position stopped advancing until the run ended.
        case stalled
        /// Neither ended nor failed within the run's time limit.
        case timedOut
    }

    public struct PlayerError: Sendable, Codable, Equatable {
        /// Seconds since the player started, when known.
        public var time: Double?
        /// The player's own name for the error ("fragLoadError", "HTTP error 503", "souphttpsrc").
        public var kind: String
        /// A numeric code when the player gave one (an HTTP status, a MediaError code).
        public var code: Int?
        public var fatal: Bool
        public var message: String

        public init(time: Double? = nil, kind: String, code: Int? = nil, fatal: Bool = false, message: String = "") {
            self.time = time; self.kind = kind; self.code = code; self.fatal = fatal; self.message = message
        }
    }

    public struct Stall: Sendable, Codable, Equatable {
        /// Seconds since the player started.
        public var at: Double
        /// Seconds it lasted (until playback resumed or the run ended).
        public var duration: Double

        public init(at: Double, duration: Double) { self.at = at; self.duration = duration }
    }

    public struct LevelSwitch: Sendable, Codable, Equatable {
        public var time: Double?
        /// The variant index (in the master playlist's order) switched to.
        public var level: Int

        public init(time: Double? = nil, level: Int) { self.time = time; self.level = level }
    }

    /// The player's name in the run (`PlayerNames.drivers`, or a custom player's: "streamlink").
    public var player: String
    /// The player's version as it reports it.
    public var version: String?
    public var outcome: Outcome
    /// Why it failed, stalled or timed out, in words.
    public var reason: String?
    public var errors: [PlayerError]
    public var stalls: [Stall]
    public var switches: [LevelSwitch]
    /// Seconds of media played (or decoded), when the player tells.
    public var position: Double?
    /// Wall-clock seconds the run took.
    public var seconds: Double
    public var exitStatus: Int32?
    /// The player's own output (stdout and stderr, or the browser's event log), capped in size.
    public var log: String

    public init(
        player: String, version: String? = nil, outcome: Outcome, reason: String? = nil,
        errors: [PlayerError] = [], stalls: [Stall] = [], switches: [LevelSwitch] = [],
        position: Double? = nil, seconds: Double = 0, exitStatus: Int32? = nil, log: String = ""
    ) {
        self.player = player; self.version = version; self.outcome = outcome; self.reason = reason
        self.errors = errors; self.stalls = stalls; self.switches = switches; self.position = position
        self.seconds = seconds; self.exitStatus = exitStatus; self.log = log
    }

    /// "played", "failed: <reason>", …: the one-line form used in verdicts and the matrix.
    public var outcomeText: String {
        guard let reason, outcome != .played else { return outcome.rawValue }
        return "\(outcome.rawValue): \(reason)"
    }
}
