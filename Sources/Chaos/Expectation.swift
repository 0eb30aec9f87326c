import SpecReading

/// What a player is expected to do under a scenario, checked by `hlschaos run` against the proxy's
/// request records, the reaction report read off them and the player's own report.
///
/// An expectation without `players` is **documented**: what a conforming player does according to
/// the references (session 514, TN2436, rfc8216bis). One with `players` is what those players are
/// known to do (observed); for them it replaces a documented expectation with the same check key.
public struct Expectation: Sendable, Equatable {
    public var check: Check
    /// Driver names (`RuleKeys.playerNames`); empty for a documented expectation.
    public var players: [String]
    /// Why it is expected (the reference), shown beside the verdict.
    public var note: String?

    public init(_ check: Check, players: [String] = [], note: String? = nil) {
        self.check = check
        self.players = players
        self.note = note
    }

    public var isDocumented: Bool { players.isEmpty }

    /// The expectation in words: "retried the faulted resource at most 10 times".
    public var words: String { check.words }

    public enum ReloadPace: String, Sendable, Equatable, CaseIterable {
        case withinBounds, tooFast, tooSlow
    }

    /// Requests that must never be made.
    public enum Forbidden: String, Sendable, Equatable, CaseIterable {
        /// Segments a media playlist served by the proxy marked `#EXT-X-GAP`.
        case gapSegments
    }

    public enum Check: Sendable, Equatable {
        /// A down-switch (up-switch) after the first fault, within `within` of it when given.
        case switchedDown(within: Duration?)
        case switchedUp(within: Duration?)
        /// The largest retry series of a faulted resource has between `atLeast` and `atMost` retries.
        case retried(atLeast: Int?, atMost: Int?)
        /// A backup copy was requested after its primary failed, within `within` of that failure.
        case failedOver(within: Duration?)
        /// VOD: the reaction report's stop is `finished`; live: a segment loaded near the end of the run.
        case fetchedToTheEnd
        /// The player gave up (stopped requesting after failures), within `within` of the first fault.
        case stopped(within: Duration?)
        /// Every judged media playlist reloaded at `withinBounds`; `tooFast`/`tooSlow`: some did.
        case reloadCadence(ReloadPace)
        case neverRequested(Forbidden)
        /// Media sequence numbers skipped (never loaded while later ones were), counted one by one.
        case skipped(atLeast: Int?, atMost: Int?)
        /// The player's variant segments came from another content-steering pathway after the first
        /// fault: from the one it was on to `to` when given, within `within` of the fault when given.
        case movedPathway(to: String?, within: Duration?)
        /// Requests for the content-steering manifest after the first fault (from the start when
        /// nothing was faulted), between the bounds given.
        case steeringReloads(atLeast: Int?, atMost: Int?)
        /// The player's outcome is one of these (`PlayerReport.Outcome` raw values).
        case outcome([String])
        /// The player reported an error whose kind contains `kind` (case-insensitive), with this
        /// code and fatality when given; all nil: any error.
        case playerError(kind: String?, code: Int?, fatal: Bool?)
        /// The player's log matches (does not match) the regular expression (lines are anchors).
        case log(String)
        case logNot(String)
        /// CMCD: once the buffer the player reported (`bl`) reached this, it never fell below it
        /// (startup requests, `su`, not counted).
        case bufferNeverBelow(Duration)
        /// CMCD: the player started playing within this of its first request (`msd`, `sta`, or its startup requests).
        case startupWithin(Duration)
        /// CMCD was sent, well-formed, and conformant over the session (`CMCDConformance`).
        case cmcdValid
        /// At least one of the checks holds.
        case anyOf([Check])
        // The player's adaptation to the session's link (issue 36; `Verdicts.AdaptationFigures`).
        /// A down-switch each time the link's capacity fell below the BANDWIDTH of the variant in
        /// use, within `within` of the fall when given (`{"switchedDown": {"after": "linkBelowVariant"}}`).
        case switchedDownOnLink(within: Duration?)
        /// An up-switch each time the link recovered from such a fall with the player below the
        /// variant it had left, within `within` of the recovery when given.
        case switchedUpOnLink(within: Duration?)
        /// Up and down switches over the run, or per minute of it, between the bounds.
        case switches(atLeast: Double?, atMost: Double?, perMinute: Bool)
        /// Stalls the player reported, between the bounds (its CMCD's when its driver reported none).
        case stalls(atLeast: Int?, atMost: Int?)
        /// The share of the link the variant in use took (0…1), between the bounds.
        case utilisation(atLeast: Double?, atMost: Double?)
        /// Time on a variant the link could not carry, at most this.
        case overshoot(atMost: Duration)
        /// The check does not hold: a player's known departure from a documented expectation
        /// (`{"not": {"fetchedToTheEnd": true}, "players": ["gstreamer"]}`).
        indirect case not(Check)

        /// The JSON key of the check.
        public var key: String {
            switch self {
            case .switchedDown: "switchedDown"
            case .switchedUp: "switchedUp"
            case .retried: "retried"
            case .failedOver: "failedOver"
            case .fetchedToTheEnd: "fetchedToTheEnd"
            case .stopped: "stopped"
            case .reloadCadence: "reloadCadence"
            case .neverRequested: "neverRequested"
            case .skipped: "skipped"
            case .movedPathway: "movedPathway"
            case .steeringReloads: "steeringReloads"
            case .outcome: "outcome"
            case .playerError: "playerError"
            case .log: "log"
            case .logNot: "logNot"
            case .bufferNeverBelow: "bufferNeverBelow"
            case .startupWithin: "startupWithin"
            case .cmcdValid: "cmcdValid"
            case .anyOf: "anyOf"
            case .not: "not"
            case .switchedDownOnLink: "switchedDown"
            case .switchedUpOnLink: "switchedUp"
            case .switches: "switches"
            case .stalls: "stalls"
            case .utilisation: "utilisation"
            case .overshoot: "overshoot"
            }
        }

        /// The key a per-player expectation replaces a documented one by: the check's own key, and
        /// for `not` the key of the check it negates (a known departure replaces what it departs from).
        /// A switch timed from the link is another check than one timed from the first fault.
        public var replacementKey: String {
            switch self {
            case .not(let check): check.replacementKey
            case .switchedDownOnLink: "switchedDown after linkBelowVariant"
            case .switchedUpOnLink: "switchedUp after linkRecovered"
            default: key
            }
        }

        /// The check in words.
        public var words: String {
            switch self {
            case .switchedDown(let within): "switched down" + Self.within(within, "of the first fault")
            case .switchedUp(let within): "switched up" + Self.within(within, "of the first fault")
            case .retried(let low, let high): Self.retriedWords(low, high)
            case .failedOver(let within): "failed over to a backup copy" + Self.within(within, "of the primary's failure")
            case .fetchedToTheEnd: "kept fetching segments to the end"
            case .stopped(let within): "gave up (stopped requesting after failures)" + Self.within(within, "of the first fault")
            case .reloadCadence(.withinBounds): "reloaded live playlists at the expected cadence (0.5–1.5× the target duration)"
            case .reloadCadence(.tooFast): "reloaded a live playlist too fast (under 0.5× the target duration)"
            case .reloadCadence(.tooSlow): "reloaded a live playlist too slowly (over 1.5× the target duration)"
            case .neverRequested(.gapSegments): "never requested a segment marked EXT-X-GAP"
            case .skipped(let low, let high): "skipped " + Self.bounds(low, high, "segment")
            case .movedPathway(let to, let within):
                "moved to " + (to.map { "content-steering pathway \($0)" } ?? "another content-steering pathway")
                    + Self.within(within, "of the first fault")
            case .steeringReloads(let low, let high): "reloaded the steering manifest " + Self.bounds(low, high, "time") + " after the first fault"
            case .outcome(let outcomes): "the player's outcome was " + outcomes.joined(separator: " or ")
            case .playerError(let kind, let code, let fatal): Self.errorWords(kind, code, fatal)
            case .log(let pattern): "the player's log matches /\(pattern)/"
            case .logNot(let pattern): "the player's log does not match /\(pattern)/"
            case .bufferNeverBelow(let floor): "the player's buffer (CMCD bl) never fell below \(ValueText.format(floor)) once it had reached it"
            case .startupWithin(let limit): "the player started within \(ValueText.format(limit)) (CMCD)"
            case .cmcdValid: "the player's CMCD was well-formed and conformant"
            case .anyOf(let checks): checks.map(\.words).joined(separator: ", or ")
            case .not(let check): "not: " + check.words
            case .switchedDownOnLink, .switchedUpOnLink, .switches, .stalls, .utilisation, .overshoot: adaptationWords
            }
        }

        private static func within(_ duration: Duration?, _ anchor: String) -> String {
            duration.map { " within \(ValueText.format($0)) \(anchor)" } ?? ""
        }

        private static func retriedWords(_ low: Int?, _ high: Int?) -> String {
            if high == 0 { return "did not retry the faulted resource" }
            return "retried the faulted resource " + bounds(low, high, "time")
        }

        /// "at least once", "at most 10 times", "2 to 5 times", "exactly 3 times".
        static func bounds(_ low: Int?, _ high: Int?, _ unit: String) -> String {
            func count(_ n: Int) -> String {
                if unit == "time" { return n == 1 ? "once" : n == 2 ? "twice" : "\(n) times" }
                return "\(n) \(unit)\(n == 1 ? "" : "s")"
            }
            switch (low, high) {
            case let (low?, high?) where low == high: return "exactly " + count(low)
            case let (low?, high?): return "\(low) to \(count(high))"
            case let (low?, nil): return "at least " + count(low)
            case let (nil, high?): return "at most " + count(high)
            case (nil, nil): return "any number of " + unit + "s"
            }
        }

        private static func errorWords(_ kind: String?, _ code: Int?, _ fatal: Bool?) -> String {
            var text = "the player reported "
            switch fatal {
            case true?: text += "a fatal error"
            case false?: text += "a non-fatal error"
            case nil: text += "an error"
            }
            if let kind { text += " \"\(kind)\"" }
            if let code { text += " with code \(code)" }
            return text
        }
    }
}

extension Expectation: CustomStringConvertible {
    public var description: String {
        words + (players.isEmpty ? " (documented)" : " (\(players.joined(separator: ", ")))")
    }
}
