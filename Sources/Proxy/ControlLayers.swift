import Chaos
import NIOConcurrencyHelpers

/// The scenario the control API applies to every session (`PUT /api/rules`), between the rule
/// files and each session's own scenario. Its clock starts when it is set.
public final class ControlLayers: Sendable {
    private let global = NIOLockedValueBox<RuleEngine.Layer?>(nil)

    public init() {}

    var layer: RuleEngine.Layer? { global.withLockedValue { $0 } }

    public var scenario: Scenario? { layer?.scenarios.first }

    func set(_ scenario: Scenario?, now: Duration) {
        global.withLockedValue { $0 = scenario.map { RuleEngine.Layer([$0], origin: now) } }
    }
}
