/// What to do with one request. Empty plan: pass through untouched.
public struct FaultPlan: Sendable, Equatable {
    /// Wait this long before the response starts (the first matching rule with a delay).
    public var delay: Duration?
    public var delayRule: RuleReference?
    /// The first matching rule with a wire action decides the response.
    public var response: WireAction?
    public var responseRule: RuleReference?
    /// Changes to the content (playlist surgery, key or session-data damage), every matching rule in file order.
    public var content: [ContentStep]
    /// Every rule that matched this request, in file order (for events).
    public var matchedRules: [RuleReference]

    public init(delay: Duration? = nil, delayRule: RuleReference? = nil, response: WireAction? = nil,
                responseRule: RuleReference? = nil, content: [ContentStep] = [], matchedRules: [RuleReference] = []) {
        self.delay = delay; self.delayRule = delayRule; self.response = response; self.responseRule = responseRule
        self.content = content; self.matchedRules = matchedRules
    }

    public var isEmpty: Bool { delay == nil && response == nil && content.isEmpty }

    /// True when the proxy must not ask upstream at all (status, hang, reset before headers, redirect hops).
    public var answersWithoutUpstream: Bool {
        switch response {
        case .status, .hang, .reset(.beforeHeaders), .redirect: true
        default: false
        }
    }
}

/// One content change of a plan, with the rule it comes from.
public struct ContentStep: Sendable, Equatable {
    public var rule: RuleReference
    public var action: PlaylistAction
    /// Instant (engine clock) when the rule's window opened: `freeze` serves the version seen just before it.
    public var windowStart: Duration
    /// For `gap` and `remove`: which segments of the playlist the rule selects.
    public var segments: SegmentSelector?

    public init(rule: RuleReference, action: PlaylistAction, windowStart: Duration = .zero, segments: SegmentSelector? = nil) {
        self.rule = rule; self.action = action; self.windowStart = windowStart; self.segments = segments
    }
}

/// The segment-level conditions of a `gap`/`remove` rule, evaluated per segment of a media playlist
/// with the same answers the rule gives to that segment's own request.
public struct SegmentSelector: Sendable, Equatable {
    public var rule: RuleReference
    public var match: Match
    /// Facts of the media playlist request; each segment inherits them with kind `.segment`.
    public var playlist: RequestFacts

    public init(rule: RuleReference, match: Match, playlist: RequestFacts) {
        self.rule = rule; self.match = match; self.playlist = playlist
    }

    public func selects(msn: Int, index: Int?, mediaTime: Double?) -> Bool {
        var facts = playlist
        facts.kind = .segment
        facts.msn = msn
        facts.index = index
        facts.mediaTime = mediaTime
        facts.resource = ""
        return match.segmentConditionsHold(facts) && match.draw(facts, rule: rule, ordinal: 0)
    }
}
