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

    /// How far behind the live edge the player said it was while playing a live stream (hls.js:
    /// `hls.latency`, the live edge plus the playlist's age minus the playing position), over the
    /// samples taken from its first `playing` on.
    public struct LiveLatency: Sendable, Codable, Equatable {
        /// Seconds: the median, lowest, highest and last sample.
        public var median: Double
        public var min: Double
        public var max: Double
        public var last: Double
        /// How many samples (hls.js: one every 0.5 s, and one at the end).
        public var samples: Int
        /// The latency the player aimed for at the last sample (hls.js `targetLatency`: the
        /// playlist's PART-HOLD-BACK in low-latency mode), when it said.
        public var target: Double?

        public init(median: Double, min: Double, max: Double, last: Double, samples: Int, target: Double? = nil) {
            self.median = median; self.min = min; self.max = max; self.last = last; self.samples = samples; self.target = target
        }

        /// "1.3 s (median of 40 samples; 1.1–1.9 s, last 1.2 s, target 1.2 s)".
        public var text: String {
            let target = self.target.map { ", target \(Self.seconds($0))" } ?? ""
            return "\(Self.seconds(median)) (median of \(samples) sample\(samples == 1 ? "" : "s"); "
                + "\(Self.number(min))–\(Self.seconds(max)), last \(Self.seconds(last))\(target))"
        }

        static func number(_ value: Double) -> String { String(format: "%.1f", value) }
        static func seconds(_ value: Double) -> String { number(value) + " s" }
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
    /// Live streams, players that report it (hls.js); nil otherwise, and absent from the JSON.
    public var liveLatency: LiveLatency?
    /// The player's own buffer, sampled every 250 ms (the browser players): the truth beside what
    /// it claimed through CMCD (`bl`). nil for players that cannot say, and absent from the JSON.
    public var buffer: [BufferSample]?

    /// Seconds of media buffered ahead of `position` at `at` (the player's clock, as `stalls`).
    public struct BufferSample: Sendable, Codable, Equatable {
        public var at: Double
        public var position: Double
        public var ahead: Double
        public init(at: Double, position: Double, ahead: Double) { self.at = at; self.position = position; self.ahead = ahead }
    }

    public init(
        player: String, version: String? = nil, outcome: Outcome, reason: String? = nil,
        errors: [PlayerError] = [], stalls: [Stall] = [], switches: [LevelSwitch] = [],
        position: Double? = nil, seconds: Double = 0, exitStatus: Int32? = nil, log: String = "",
        liveLatency: LiveLatency? = nil
    ) {
        self.player = player; self.version = version; self.outcome = outcome; self.reason = reason
        self.errors = errors; self.stalls = stalls; self.switches = switches; self.position = position
        self.seconds = seconds; self.exitStatus = exitStatus; self.log = log; self.liveLatency = liveLatency
    }

    /// "played", "failed: <reason>", …: the one-line form used in verdicts and the matrix.
    public var outcomeText: String {
        guard let reason, outcome != .played else { return outcome.rawValue }
        return "\(outcome.rawValue): \(reason)"
    }

    /// `outcomeText`, and the live latency when the player reported one: "played; live latency
    /// 1.3 s (median of 40 samples; …)". What run reports and the matrix show for the player.
    public var summaryText: String {
        outcomeText + (liveLatency.map { "; live latency \($0.text)" } ?? "")
    }
}
