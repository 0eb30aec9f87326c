import Addressing
import PlayerReports

/// Every key the decoder accepts, per object. The JSON Schema in rules/schema.json is tested against these lists.
public enum RuleKeys {
    public static let scenario = ["$schema", "name", "description", "reference", "expected", "play", "expect", "rules", "link"]
    public static let play = ["stream", "flavour", "for"]
    /// The keys of `"expected"`: the players whose reaction a scenario describes in words. Player
    /// families, some of which `hlschaos run` cannot drive (AVPlayer, ExoPlayer); not `playerNames`.
    public static let expected = ["avplayer", "hlsjs", "vhs", "exoplayer", "ffmpeg", "gstreamer", "vlc"]
    /// The `expected` family whose text describes a player of `hlschaos run` (both GStreamer
    /// demuxers are `gstreamer`); nil for custom players.
    public static func expectedFamily(ofPlayer player: String) -> String? {
        player == "gstreamer-legacy" ? "gstreamer" : expected.contains(player) ? player : nil
    }
    /// The families every preset describes; `vhs` and `vlc` only where their reaction was observed.
    public static let expectedInEveryPreset = ["avplayer", "hlsjs", "exoplayer", "ffmpeg", "gstreamer"]
    public static let rule = ["id", "description", "match", "action"]
    public static let match = [
        "kind", "variant", "rendition", "msn", "part", "index", "time", "requests", "after", "for",
        "probability", "seed", "copy", "pathway", "session", "method", "range", "blocking", "cmcd",
    ]
    /// `match.cmcd`: the CMCD keys a rule can compare.
    public static let cmcdMatch = ["present", "bl", "mtp", "su", "bs", "sta", "ot"]
    public static let cmcdBounds = ["below", "above"]
    public static let variantSelector = ["index", "bandwidth", "resolution", "name"]
    public static let variantKeywords = ["highest", "lowest"]
    public static let bandwidth = ["min", "max"]
    public static let renditionSelector = ["type", "language", "name"]
    public static let renditionTypes = ["AUDIO", "SUBTITLES", "CLOSED-CAPTIONS", "VIDEO"]
    public static let numberSet = ["from", "to", "every"]
    public static let window = ["from", "to"]
    public static let kinds = ResourceKind.allCases.map(\.rawValue) + ["any"]
    public static let copies = ["primary", "backup"]

    public static let wireActions = [
        "status", "hang", "throttle", "stall", "reset", "truncate", "corrupt", "contentType", "redirect", "rejectRanges",
    ]
    /// Keys that only qualify `status`.
    public static let statusExtras = ["headers", "body"]
    public static let playlistActions = [
        "stripVariants", "stripRenditions", "gap", "remove", "freeze", "lag", "sequenceShift", "targetDuration",
        "endList", "malform", "sessionData", "key", "backupVariants", "ignoreDirectives",
        "lowLatency", "steering",
    ]
    public static let action = ["delay"] + wireActions + statusExtras + playlistActions

    public static let stall = ["afterBytes", "for"]
    public static let reset = ["afterBytes"]
    public static let resetKeywords = ["before-headers"]
    public static let truncate = ["afterBytes", "fraction"]
    public static let corrupt = ["bytes", "seed"]
    public static let redirect = ["status", "hops", "loop"]
    public static let redirectStatuses = [301, 302, 303, 307, 308]
    public static let gap = ["status"]
    public static let gapStatuses = [404, 410]
    public static let endList = ["add", "remove"]
    public static let malform = Malformation.allCases.map(\.rawValue)
    public static let lowLatency = LowLatencyDamage.allCases.map(\.rawValue)
    public static let sessionData = SessionDataDamage.allCases.map(\.rawValue)
    public static let key = KeyDamage.allCases.map(\.rawValue)
    public static let steering = ["ttl", "priority", "reloadURI", "malformed"]

    // MARK: expectations (`"expect": [...]`)

    /// The check keys; an expectation has exactly one.
    public static let checks = [
        "switchedDown", "switchedUp", "retried", "failedOver", "fetchedToTheEnd", "stopped", "reloadCadence",
        "neverRequested", "skipped", "movedPathway", "steeringReloads", "outcome", "playerError", "log", "logNot",
        "bufferNeverBelow", "startupWithin", "cmcdValid", "anyOf", "not",
    ] + adaptationChecks
    /// The checks of a player's adaptation to the session's link (issue 36).
    public static let adaptationChecks = ["switches", "stalls", "utilisation", "overshoot"]
    public static let expectation = checks + ["players", "note"]
    /// What an expectation's `"players"` can name: the drivers of `hlschaos run --player`, and
    /// `command` for every custom player (`PlayerNames`); not the `expected` keys.
    public static let playerNames = PlayerNames.expectable
    public static let outcomes = PlayerReport.Outcome.allCases.map(\.rawValue)
    public static let timing = ["within"]
    /// `switchedDown` and `switchedUp`: `within`, and what the time is measured from.
    public static let switchTiming = ["within", "after"]
    public static let switchedDownAnchors = ["firstFault", "linkBelowVariant"]
    public static let switchedUpAnchors = ["firstFault", "linkRecovered"]
    public static let switches = ["atLeast", "atMost", "perMinute"]
    public static let utilisation = ["atLeast", "atMost"]
    public static let overshoot = ["atMost"]
    public static let movedPathway = ["to", "within"]
    public static let bounds = ["atLeast", "atMost"]
    public static let reloadPaces = Expectation.ReloadPace.allCases.map(\.rawValue)
    public static let forbidden = Expectation.Forbidden.allCases.map(\.rawValue)
    public static let playerError = ["kind", "code", "fatal"]
}
