import Addressing
import Foundation

/// How a player reacted to trouble in one session, read off that session's request records: variant
/// switches, retries, failovers to backup copies, playlist reload cadence, skipped segments, whether it
/// stopped, and a one-line verdict in words. Built by `ReactionReport.analyze(_:now:…)`.
///
/// Every finding names the records it was read from (`records`, request ids), so a reader can check it
/// against the event log or the HAR.
public struct ReactionReport: Sendable, Codable, Equatable {
    public var session: String?
    /// How many records the report was read from.
    public var requests: Int
    /// The first request with a fault applied (non-empty `actions`).
    public var firstFault: Incident?
    /// The first failed request (status ≥ 400, no status, or an ending other than complete).
    public var firstFailure: Incident?
    /// The first retry, switch, failover or give-up after the first fault (after the first failure
    /// when no fault was applied).
    public var firstReaction: Reaction?
    /// Changes of the variant whose segments the player requests.
    public var switches: [VariantSwitch]
    /// Failed resources that were requested again.
    public var retries: [RetrySeries]
    /// Moves to a variant's backup copy after its primary copy failed.
    public var failovers: [Failover]
    /// Media playlist reloads, one entry per playlist requested at least twice.
    public var reloads: [ReloadCadence]
    /// Media sequence numbers never loaded while later ones were.
    public var skipped: [SkippedSegments]
    /// Set when the player made no request for longer than the idle threshold before `now`.
    public var stop: Stop?
    /// Content-steering pathways and manifest reloads; nil for a session without either.
    public var steering: Steering?
    /// Ids of every failed request, in time order.
    public var failures: [UInt64]
    /// What the player said through CMCD (buffer at each fault, lowest buffer, stalls, startup); nil
    /// when no request carried CMCD.
    public var player: PlayerSummary?
    /// The field device's player, when the session replays a HAR import whose requests carried
    /// CMCD (`hlschaos replay`, `import-har`'s `player.json`): its lowest buffer, stalls and startup,
    /// beside `player`, what the replaying player said. Times since the field session's first request.
    public var fieldPlayer: PlayerSummary?
    public var outcome: Outcome
    /// What the analysis assumed or could not judge, in words.
    public var notes: [String]
    /// The report in one line of words.
    public var verdict: String

    public init(
        session: String? = nil, requests: Int = 0, firstFault: Incident? = nil, firstFailure: Incident? = nil,
        firstReaction: Reaction? = nil, switches: [VariantSwitch] = [], retries: [RetrySeries] = [],
        failovers: [Failover] = [], reloads: [ReloadCadence] = [], skipped: [SkippedSegments] = [],
        stop: Stop? = nil, failures: [UInt64] = [], outcome: Outcome = .clean, notes: [String] = [], verdict: String = ""
    ) {
        self.session = session; self.requests = requests; self.firstFault = firstFault
        self.firstFailure = firstFailure; self.firstReaction = firstReaction; self.switches = switches
        self.retries = retries; self.failovers = failovers; self.reloads = reloads; self.skipped = skipped
        self.stop = stop; self.failures = failures; self.outcome = outcome; self.notes = notes; self.verdict = verdict
    }

    /// How the session turned out, for scripts (the verdict says it in words).
    public enum Outcome: String, Sendable, Codable, Equatable {
        /// No fault applied and nothing failed.
        case clean
        /// Faults were applied but no request failed (delays, throttles, playlist surgery).
        case continued
        /// Requests failed, and a later segment (or, without segments, any later request) succeeded.
        case recovered
        /// Requests failed and nothing succeeded since; the player is still requesting.
        case unrecovered
        /// The player stopped requesting after failures.
        case gaveUp
    }

    /// What a request was for, as the records name it.
    public struct Resource: Sendable, Codable, Equatable {
        public var kind: ResourceKind?
        public var variant: Int?
        public var rendition: Int?
        public var copy: String?
        public var msn: Int?
        public var part: Int?
        /// The request path without its query.
        public var path: String

        public init(kind: ResourceKind? = nil, variant: Int? = nil, rendition: Int? = nil, copy: String? = nil,
                    msn: Int? = nil, part: Int? = nil, path: String) {
            self.kind = kind; self.variant = variant; self.rendition = rendition; self.copy = copy
            self.msn = msn; self.part = part; self.path = path
        }
    }

    /// One notable request: the first fault or the first failure.
    public struct Incident: Sendable, Codable, Equatable {
        public var record: UInt64
        public var time: Date
        public var resource: Resource
        public var status: Int?
        public var ending: RequestRecord.Ending
        public var actions: [RequestRecord.Action]

        public init(record: UInt64, time: Date, resource: Resource, status: Int?, ending: RequestRecord.Ending, actions: [RequestRecord.Action]) {
            self.record = record; self.time = time; self.resource = resource; self.status = status
            self.ending = ending; self.actions = actions
        }
    }

    public struct Reaction: Sendable, Codable, Equatable {
        public enum Kind: String, Sendable, Codable, Equatable { case retry, `switch`, failover, gaveUp }
        public var kind: Kind
        public var time: Date
        /// Seconds from the triggering request (first fault, else first failure) to the reaction.
        public var after: Double
        /// The triggering request, then the request(s) that show the reaction.
        public var records: [UInt64]

        public init(kind: Kind, time: Date, after: Double, records: [UInt64]) {
            self.kind = kind; self.time = time; self.after = after; self.records = records
        }
    }

    public struct VariantSwitch: Sendable, Codable, Equatable {
        public enum Direction: String, Sendable, Codable, Equatable { case up, down, lateral }
        /// What `direction` was decided by: the variants' BANDWIDTH, or their index when a bandwidth
        /// was not given (assuming the master lists variants from lowest to highest).
        public enum Basis: String, Sendable, Codable, Equatable { case bandwidth, index }
        /// The first request for the new variant after the last segment of the old one: its media
        /// playlist when the player loaded it first, else its first segment.
        public var time: Date
        public var from: Int
        public var to: Int
        public var direction: Direction
        public var basis: Basis
        /// The last segment request of `from`, the media playlist request of `to` (when there was
        /// one in between), the first segment request of `to`.
        public var records: [UInt64]

        public init(time: Date, from: Int, to: Int, direction: Direction, basis: Basis, records: [UInt64]) {
            self.time = time; self.from = from; self.to = to; self.direction = direction; self.basis = basis
            self.records = records
        }
    }

    /// A failed request for a resource and the requests for the same resource that followed, up to
    /// and including the first one that succeeded.
    public struct RetrySeries: Sendable, Codable, Equatable {
        public var resource: Resource
        /// Requests after the first failed one.
        public var retries: Int
        /// Seconds between the starts of consecutive attempts.
        public var spacing: [Double]
        /// The last attempt succeeded.
        public var succeeded: Bool
        /// The status of each attempt (nil: none was sent).
        public var statuses: [Int?]
        /// Every attempt, the failed one first.
        public var records: [UInt64]

        public init(resource: Resource, retries: Int, spacing: [Double], succeeded: Bool, statuses: [Int?], records: [UInt64]) {
            self.resource = resource; self.retries = retries; self.spacing = spacing; self.succeeded = succeeded
            self.statuses = statuses; self.records = records
        }
    }

    public struct Failover: Sendable, Codable, Equatable {
        public var variant: Int
        /// The first request for the backup copy.
        public var time: Date
        /// Seconds from the primary copy's first failure (since its last success) to that request.
        public var after: Double
        /// A request for the backup copy succeeded.
        public var succeeded: Bool
        /// The primary copy's failure, then the first backup request.
        public var records: [UInt64]

        public init(variant: Int, time: Date, after: Double, succeeded: Bool, records: [UInt64]) {
            self.variant = variant; self.time = time; self.after = after; self.succeeded = succeeded
            self.records = records
        }
    }

    public struct ReloadCadence: Sendable, Codable, Equatable {
        /// How the median interval compares to the target duration (rfc8216bis §6.3.4: between
        /// 0.5× and 1.5×).
        public enum Pace: String, Sendable, Codable, Equatable {
            case withinBounds, tooFast, tooSlow
            /// No target duration given (VOD), fewer than three requests, or blocking reloads.
            case notJudged
        }
        public var variant: Int?
        public var rendition: Int?
        public var copy: String?
        public var requests: Int
        /// Median seconds between the starts of consecutive requests.
        public var medianInterval: Double
        public var targetDuration: Double?
        /// `medianInterval / targetDuration`.
        public var ratio: Double?
        public var pace: Pace
        /// LL-HLS reloads among them: blocking reloads and delta updates (nil when there were none).
        public var lowLatency: LowLatencyReloads?
        /// Every request for this playlist.
        public var records: [UInt64]

        public init(variant: Int?, rendition: Int?, copy: String?, requests: Int, medianInterval: Double,
                    targetDuration: Double?, ratio: Double?, pace: Pace, lowLatency: LowLatencyReloads? = nil,
                    records: [UInt64]) {
            self.variant = variant; self.rendition = rendition; self.copy = copy; self.requests = requests
            self.medianInterval = medianInterval; self.targetDuration = targetDuration; self.ratio = ratio
            self.pace = pace; self.lowLatency = lowLatency; self.records = records
        }
    }

    /// A playlist's LL-HLS reloads (rfc8216bis §6.2.5): how many asked to block (`_HLS_msn`) and
    /// how long the answers took, and how many asked for a delta update (`_HLS_skip`).
    public struct LowLatencyReloads: Sendable, Codable, Equatable {
        public var blocking: Int
        /// Seconds from a blocking reload's arrival to the end of its answer (nil without any).
        public var medianHeld: Double?
        public var longestHeld: Double?
        /// The blocking reload held longest.
        public var longestRecord: UInt64?
        public var deltaUpdates: Int

        public init(blocking: Int, medianHeld: Double?, longestHeld: Double?, longestRecord: UInt64?, deltaUpdates: Int) {
            self.blocking = blocking; self.medianHeld = medianHeld; self.longestHeld = longestHeld
            self.longestRecord = longestRecord; self.deltaUpdates = deltaUpdates
        }
    }

    /// Media sequence numbers `from...to` never loaded (never requested, or every request for them
    /// failed) although a later one was.
    public struct SkippedSegments: Sendable, Codable, Equatable {
        /// The variant of the first segment loaded past the gap.
        public var variant: Int?
        public var from: Int
        public var to: Int
        /// When that segment was requested.
        public var time: Date
        /// The last segment loaded before the gap, the failed requests for the skipped MSNs, then the
        /// first segment loaded past the gap.
        public var records: [UInt64]

        public init(variant: Int?, from: Int, to: Int, time: Date, records: [UInt64]) {
            self.variant = variant; self.from = from; self.to = to; self.time = time; self.records = records
        }
    }

    public struct Stop: Sendable, Codable, Equatable {
        public enum Kind: String, Sendable, Codable, Equatable {
            /// The last requests failed (after the last segment that loaded).
            case gaveUp
            /// No failures at the end; the last segment requested was the variant's last (`lastMSN`).
            case finished
            /// No failures at the end; whether that was the end of the content is not known.
            case stopped
        }
        public var kind: Kind
        /// When the last request ended (the player may have waited on it, e.g. on a hang).
        public var time: Date
        /// Seconds from `time` to `now`.
        public var idle: Double
        /// The last segment requested, if any.
        public var lastSegment: Resource?
        /// `gaveUp`: the failed requests since the last segment that loaded, then the last request
        /// if it is not one of them; otherwise the last request.
        public var records: [UInt64]

        public init(kind: Kind, time: Date, idle: Double, lastSegment: Resource?, records: [UInt64]) {
            self.kind = kind; self.time = time; self.idle = idle; self.lastSegment = lastSegment; self.records = records
        }
    }
}
