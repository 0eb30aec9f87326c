import Addressing
import Link

/// Evaluates rules for requests. Immutable and Sendable: share one per rule set; per-session
/// memory is in the `SessionState` passed in.
///
/// How the proxy uses the module, per request:
/// 1. `RequestFacts`: session id, `ResourceKind` (from the tag it wrote when rewriting, whose kind
///    `ResourceTag.Kind(URIPlaceFacts)` gave), `VariantFacts` (from the origin's master, `VariantFacts.all(in:)`,
///    before any surgery), `RenditionFacts(rendition)`, msn, and `SegmentPosition.fill` for index/time,
///    `copy` (backup path or not), Range header, method; `resource` = upstream URL for non-segments.
/// 2. `plan(for:state:now:)` with the session's `SessionState` (under the session's lock) and the
///    instant of a `ChaosClock` (`SystemChaosClock` in production).
/// 3. Wire: wait `plan.delay`, then execute `plan.response` (`answersWithoutUpstream` says whether to
///    fetch at all); `Corruption(action, bodyLength:)` damages body chunks by absolute offset,
///    `Truncation.byteLimit(contentLength:)` says where to stop.
/// 4. Playlists: `state.recordPlaylist(upstreamBody, resource:, at: now)` (when `needsPlaylistHistory`),
///    `PlaylistSurgery.body(serving:steps:history:now:)` (freeze/lag), parse, `PlaylistSurgery.apply`
///    (with the backup URI hook), rewrite URIs, serialise, `PlaylistSurgery.damage` (malform, session data).
/// 5. Keys and session-data JSON: `ContentDamage.apply(plan.content, to:kind:)`.
public struct RuleEngine: Sendable {
    public struct Entry: Sendable, Equatable {
        public var reference: RuleReference
        public var rule: Rule
        /// Where the rule's clock (`after`, `for`) starts: nil for the session's first request, or
        /// the engine-clock instant its scenario was set (a scenario applied while a player runs).
        public var origin: Duration?
    }

    /// Scenarios whose rules share one clock origin; an engine evaluates layers in order.
    public struct Layer: Sendable, Equatable {
        public var scenarios: [Scenario]
        /// nil: the session's first request; otherwise the instant the layer was set.
        public var origin: Duration?
        /// The layer's link: its first scenario's that has one.
        public var link: LinkChoice?

        public init(_ scenarios: [Scenario], origin: Duration? = nil) {
            self.scenarios = scenarios
            self.origin = origin
            self.link = scenarios.first { $0.link != nil }.map { LinkChoice(spec: $0.link!, from: "scenario \"\($0.name)\"") }
        }
    }

    /// The link the layers give a session: the first layer's that has one, the order in which a
    /// wire action is chosen too (rule files, the control API's scenario for every session, the
    /// session's own, the URL's presets).
    public var link: LinkChoice? { layerLinks.lazy.compactMap { $0 }.first }
    private let layerLinks: [LinkChoice?]

    /// All rules of all scenarios, in load order (layer order, scenario order, then file order).
    public let entries: [Entry]
    /// Where each layer's rules begin in `entries`.
    private let layerStarts: [Int]
    /// How far back the playlist history must reach for these rules: the longest `lag`, or the
    /// longest `freeze` window (its `for`), plus a margin; nil when a `freeze` has no end (then
    /// only the session's byte budget bounds the history).
    public let historyHorizon: Duration?

    public init(layers: [Layer]) {
        var starts: [Int] = []
        var count = 0
        for layer in layers {
            starts.append(count)
            count += layer.scenarios.reduce(0) { $0 + $1.rules.count }
        }
        self.init(entries: layers.flatMap { layer in
            layer.scenarios.flatMap { scenario in
                scenario.rules.map {
                    Entry(reference: RuleReference(scenario: scenario.name, id: $0.id), rule: $0, origin: layer.origin)
                }
            }
        }, layerStarts: starts, layerLinks: layers.map(\.link))
    }

    public init(scenarios: [Scenario]) { self.init(layers: [Layer(scenarios)]) }

    private init(entries: [Entry], layerStarts: [Int], layerLinks: [LinkChoice?]) {
        self.entries = entries
        self.layerStarts = layerStarts
        self.layerLinks = layerLinks
        var horizon: Duration? = .zero
        for entry in entries {
            for action in entry.rule.action.playlist {
                switch action {
                case .lag(let lag): horizon = horizon.map { max($0, lag) }
                case .freeze:
                    if let window = entry.rule.match.duration { horizon = horizon.map { max($0, window) } } else { horizon = nil }
                default: continue
                }
            }
        }
        historyHorizon = horizon.map { $0 + .seconds(5) }
    }

    /// This engine with `layers` evaluated before its layer number `layer` (after all of them when
    /// there is no such layer): the control API's scenarios go between the global rule files
    /// (layer 0) and the presets a URL names (layer 1).
    public func inserting(_ layers: [Layer], beforeLayer layer: Int) -> RuleEngine {
        guard !layers.isEmpty else { return self }
        let inserted = RuleEngine(layers: layers)
        let layerIndex = min(max(layer, 0), layerStarts.count)
        let split = layerIndex < layerStarts.count ? layerStarts[layerIndex] : entries.count
        let starts = layerStarts[..<layerIndex] + inserted.layerStarts.map { $0 + split }
            + layerStarts[layerIndex...].map { $0 + inserted.entries.count }
        let links = layerLinks[..<layerIndex] + inserted.layerLinks + layerLinks[layerIndex...]
        return RuleEngine(entries: Array(entries[..<split]) + inserted.entries + entries[split...], layerStarts: Array(starts),
                          layerLinks: Array(links))
    }

    public init(scenario: Scenario) { self.init(scenarios: [scenario]) }

    /// True when some rule needs playlist history (`freeze`/`lag`): the proxy must record upstream playlists.
    public var needsPlaylistHistory: Bool {
        entries.contains { $0.rule.action.playlist.contains { if case .freeze = $0 { true } else if case .lag = $0 { true } else { false } } }
    }

    /// The fault plan for one request at instant `now` of the engine clock; updates the session's counters.
    /// The request's facts are read only when there are rules to ask (most requests pass an engine
    /// without any).
    public func plan(for facts: @autoclosure () -> RequestFacts, state: inout SessionState, now: Duration) -> FaultPlan {
        state.begin(at: now)
        var plan = FaultPlan()
        guard !entries.isEmpty else { return plan }
        let facts = facts()
        for entry in entries {
            let rule = entry.rule
            let reference = entry.reference
            let origin = entry.origin ?? state.start ?? now
            guard rule.match.windowContains(sessionTime: now - origin) else { continue }
            let windowStart = origin + (rule.match.after ?? .zero)

            if let segmentAction = rule.action.playlist.first(where: \.isSegmentTargeted) {
                guard evaluateSegmentTargeted(rule, reference, segmentAction, facts, windowStart, &plan) else { continue }
                if let delay = rule.action.delay, plan.delay == nil { plan.delay = delay; plan.delayRule = reference }
                plan.matchedRules.append(reference)
                continue
            }

            var kinds = rule.match.kinds
            if rule.action.wire == .rejectRanges, !facts.isRangeRequest { continue }
            if kinds == nil, rule.action.wire == nil, rule.action.delay == nil {
                // A rule of content actions only: it matches where one of them has an effect.
                kinds = rule.action.playlist.reduce(into: Set<ResourceKind>()) { $0.formUnion($1.applicableKinds) }
            }
            guard rule.match.resourceConditionsHold(facts, kinds: kinds) else { continue }
            let ordinal = state.countMatch(reference)
            if let requests = rule.match.requests, !requests.contains(ordinal) { continue }
            if rule.match.probability != nil {
                let attempt = state.nextAttempt(reference, facts.resourceIdentity)
                guard rule.match.draw(facts, rule: reference, ordinal: attempt) else { continue }
            }

            plan.matchedRules.append(reference)
            if let delay = rule.action.delay, plan.delay == nil { plan.delay = delay; plan.delayRule = reference }
            if let wire = rule.action.wire, plan.response == nil { plan.response = wire; plan.responseRule = reference }
            for step in rule.action.playlist where step.applicableKinds.contains(facts.kind) {
                plan.content.append(ContentStep(rule: reference, action: step, windowStart: windowStart))
            }
        }
        return plan
    }

    /// `gap`/`remove`: on a media playlist the rule contributes a segment selector; on the segment
    /// itself a gap answers its status. Returns whether the rule took part.
    private func evaluateSegmentTargeted(_ rule: Rule, _ reference: RuleReference, _ action: PlaylistAction,
                                         _ facts: RequestFacts, _ windowStart: Duration, _ plan: inout FaultPlan) -> Bool {
        let kinds = rule.match.kinds
        let targetsSegments = kinds == nil || kinds?.contains(.segment) == true || kinds?.contains(.media) == true
        guard targetsSegments else { return false }
        var playlistMatch = rule.match
        playlistMatch.msn = nil
        playlistMatch.index = nil
        playlistMatch.time = nil
        switch facts.kind {
        case .media:
            guard playlistMatch.resourceConditionsHold(facts, kinds: nil) else { return false }
            let selector = SegmentSelector(rule: reference, match: rule.match, playlist: facts)
            for step in rule.action.playlist where step.applicableKinds.contains(.media) {
                plan.content.append(ContentStep(rule: reference, action: step, windowStart: windowStart, segments: selector))
            }
            return true
        case .segment:
            guard rule.match.resourceConditionsHold(facts, kinds: nil),
                  rule.match.draw(facts, rule: reference, ordinal: 0) else { return false }
            if case .gap(let status) = action, plan.response == nil {
                plan.response = .status(code: status, headers: [], body: nil)
                plan.responseRule = reference
            }
            return true
        default:
            return false
        }
    }
}

extension PlaylistAction {
    /// `gap` and `remove` select segments inside media playlists.
    public var isSegmentTargeted: Bool {
        switch self {
        case .gap, .remove: true
        default: false
        }
    }
}
