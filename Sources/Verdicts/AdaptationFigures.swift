import Foundation

/// How a player adapted to its session's link: what `hlschaos run` keeps beside the verdict and
/// the matrix shows per cell. Made from the request records, the player's report and the link's
/// history (`LinkObservation`); docs/link.md *Judging adaptation* says how each figure is made.
///
/// Times are seconds on the session's clock (the link history's axis); durations are seconds.
/// Variants are numbered as in the records: the master's `EXT-X-STREAM-INF` order, 0-based.
public struct AdaptationFigures: Sendable, Codable, Equatable {
    /// A capacity must stay below (at or above) a `BANDWIDTH` this long, in seconds, for the link to
    /// have fallen below (recovered above) it: shorter dips are noise a player should ride out.
    public static let settle = 1.0

    /// The variant in use from `at` on.
    public struct VariantSpan: Sendable, Codable, Equatable {
        public var at: Double
        public var variant: Int
        /// Its `BANDWIDTH`; nil when the ladder has no such variant.
        public var bandwidth: Int?

        public init(at: Double, variant: Int, bandwidth: Int?) { self.at = at; self.variant = variant; self.bandwidth = bandwidth }
    }

    /// The link's capacity fell below the `BANDWIDTH` of the variant in use, and stayed below for
    /// `settle` or more: what a player should answer by going down; then, when it recovered, what
    /// it should answer by going back up.
    public struct Fall: Sendable, Codable, Equatable {
        /// When the capacity fell (a bucket's start).
        public var at: Double
        /// The variant in use then, its `BANDWIDTH`, and the capacity in the first bucket below it (bit/s).
        public var variant: Int
        public var bandwidth: Int
        public var capacity: Int
        /// How long the capacity stayed below `bandwidth` while the player fetched (to the recovery,
        /// else to the end of its fetching).
        public var below: Double
        /// Seconds from `at` to the first down-switch before the recovery; nil: none.
        public var wentDownAfter: Double?
        /// The record of that switch's first segment of the lower variant.
        public var downSwitch: UInt64?
        /// Seconds from `at` until the capacity was back at or above `bandwidth` for `settle`; nil:
        /// not while the player fetched.
        public var recoveredAfter: Double?
        /// The player was on a variant below `variant` when the link recovered: it had room to go
        /// back up. False also when it did not recover.
        public var neededUp: Bool
        /// How long the link stayed recovered while the player fetched (to the next fall below
        /// `bandwidth`, else to the end of its fetching); nil when it did not recover.
        public var recoveredFor: Double?
        /// Seconds from the recovery to the first up-switch while it lasted; nil: none (or not needed).
        public var wentUpAfter: Double?
        /// The record of that switch's first segment of the higher variant.
        public var upSwitch: UInt64?

        public init(at: Double, variant: Int, bandwidth: Int, capacity: Int, below: Double, wentDownAfter: Double? = nil,
                    downSwitch: UInt64? = nil, recoveredAfter: Double? = nil, neededUp: Bool = false, recoveredFor: Double? = nil,
                    wentUpAfter: Double? = nil, upSwitch: UInt64? = nil) {
            self.at = at; self.variant = variant; self.bandwidth = bandwidth; self.capacity = capacity; self.below = below
            self.wentDownAfter = wentDownAfter; self.downSwitch = downSwitch; self.recoveredAfter = recoveredAfter
            self.neededUp = neededUp; self.recoveredFor = recoveredFor; self.wentUpAfter = wentUpAfter; self.upSwitch = upSwitch
        }
    }

    /// What was judged: from the first variant segment's request to the end of the last one's
    /// response, within the link's history. Utilisation and overshoot count its up time only.
    public var from: Double
    public var to: Double
    /// The variant in use over time (from the first variant segment on).
    public var variants: [VariantSpan]
    /// Up and down switches (lateral ones not counted), and per minute of the player's fetching.
    public var switches: Int
    public var switchesPerMinute: Double
    public var falls: [Fall]
    /// Stalls the player reported, and their total in seconds; nil without a player report or
    /// CMCD. Its driver's report when that has stalls, else the stalls its CMCD said (`stallSource`).
    public var stalls: Int?
    public var stallSeconds: Double?
    public var stallSource: StallSource?

    public enum StallSource: String, Sendable, Codable, Equatable {
        /// The driver's report (the page's waiting events, mpv's paused-for-cache, …).
        case report
        /// What the player said through CMCD (`PlayerTimeline.saidStalls`; durations only where said).
        case cmcd
    }
    /// The time-weighted mean, over the link's up time, of the variant's `BANDWIDTH` over the
    /// capacity (the capacity capped at the top variant, the variant's `BANDWIDTH` at that
    /// capacity): 1 is all the link could give it. nil when no time could be weighed.
    public var utilisation: Double?
    /// Seconds of up time on a variant above the capacity when a lower variant was there to go to.
    public var overshoot: Double
    /// The highest `BANDWIDTH` of the ladder: the capacity utilisation is capped at.
    public var topBandwidth: Int?

    public init(from: Double, to: Double, variants: [VariantSpan], switches: Int, switchesPerMinute: Double, falls: [Fall],
                stalls: Int?, stallSeconds: Double?, utilisation: Double?, overshoot: Double, topBandwidth: Int?) {
        self.from = from; self.to = to; self.variants = variants; self.switches = switches
        self.switchesPerMinute = switchesPerMinute; self.falls = falls; self.stalls = stalls; self.stallSeconds = stallSeconds
        self.utilisation = utilisation; self.overshoot = overshoot; self.topBandwidth = topBandwidth
    }

    /// Seconds judged.
    public var seconds: Double { max(0, to - from) }
}
