/// One rule file: a named scenario and its rules, in file order.
public struct Scenario: Sendable, Equatable {
    public var name: String
    public var description: String?
    /// The row of error-paths.md the scenario exercises.
    public var reference: String?
    /// Expected player reactions keyed by player ("avplayer", "hlsjs", "exoplayer", "ffmpeg", "gstreamer").
    public var expected: [String: String]
    public var rules: [Rule]
    /// What players are expected to do under this scenario (`"expect"`), checked by `hlschaos run`.
    public var expectations: [Expectation]

    public init(name: String, description: String? = nil, reference: String? = nil,
                expected: [String: String] = [:], rules: [Rule], expectations: [Expectation] = []) {
        self.name = name
        self.description = description
        self.reference = reference
        self.expected = expected
        self.rules = rules
        self.expectations = expectations
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
