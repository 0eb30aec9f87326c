import Link

/// One rule file: a named scenario and its rules, in file order, and the link it gives a session.
public struct Scenario: Sendable, Equatable {
    public var name: String
    public var description: String?
    /// The row of error-paths.md the scenario exercises.
    public var reference: String?
    /// Expected player reactions keyed by player ("avplayer", "hlsjs", "vhs", "exoplayer", "ffmpeg", "gstreamer", "vlc").
    public var expected: [String: String]
    public var rules: [Rule]
    /// The demo stream the scenario is written for, and how long to play it (`hlschaos run`, the matrix).
    public var play: PlayHint?
    /// What players are expected to do under this scenario (`"expect"`), checked by `hlschaos run`.
    public var expectations: [Expectation]
    /// The device's link under this scenario (`"link"`): what the session's responses share.
    public var link: LinkSpec?

    public init(name: String, description: String? = nil, reference: String? = nil,
                expected: [String: String] = [:], rules: [Rule], play: PlayHint? = nil, expectations: [Expectation] = [],
                link: LinkSpec? = nil) {
        self.link = link
        self.name = name
        self.description = description
        self.reference = reference
        self.expected = expected
        self.rules = rules
        self.play = play
        self.expectations = expectations
    }
}

/// `"play": {"stream": "live", "flavour": "aes", "for": "30s"}`: a live-only fault needs the live
/// stream, a key fault the encrypted flavour; a live stream never ends, so it says how long to play.
public struct PlayHint: Sendable, Equatable {
    public static let streams = ["vod", "live", "ll", "steering"]
    public static let flavours = ["ts", "fmp4", "aes", "byterange"]

    public var stream: String?
    public var flavour: String?
    /// Seconds to play (live).
    public var seconds: Double?

    public init(stream: String? = nil, flavour: String? = nil, seconds: Double? = nil) {
        self.stream = stream; self.flavour = flavour; self.seconds = seconds
    }
}

public struct Rule: Sendable, Equatable {
    public var id: String
    public var match: Match
    public var action: Action

    public init(id: String, match: Match = Match(), action: Action) {
        self.id = id
        self.match = match
        self.action = action
    }
}
