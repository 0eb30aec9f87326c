@testable import Chaos

/// A one-rule scenario around a match and an action given as JSON text.
func scenarioJSON(match: String = "{}", action: String) -> String {
    #"{"name": "t", "rules": [{"id": "r", "match": \#(match), "action": \#(action)}]}"#
}

func problems(_ json: String) -> [String] {
    RuleDecoder.problems(in: Array(json.utf8), file: "t.json").map(\.description)
}

func decode(_ json: String) throws -> Scenario {
    try RuleDecoder.decode(Array(json.utf8), file: "t.json")
}

func rule(_ json: String = "{}", _ action: String) throws -> Rule {
    try decode(scenarioJSON(match: json, action: action)).rules[0]
}

/// An engine over one scenario given as rule JSON objects.
func makeEngine(_ rules: String...) throws -> RuleEngine {
    let json = #"{"name": "s", "rules": [\#(rules.joined(separator: ","))]}"#
    return RuleEngine(scenario: try decode(json))
}

let v0 = VariantFacts(index: 0, bandwidth: 456_468, resolution: "416x234", isHighest: false, isLowest: true)
let v1 = VariantFacts(index: 1, bandwidth: 606_116, resolution: "640x360")
let v2 = VariantFacts(index: 2, bandwidth: 884_356, resolution: "960x540", name: "top", isHighest: true)

func segment(_ msn: Int, variant: VariantFacts = v1, session: String = "s1", index: Int? = nil,
             time: Double? = nil, copy: Copy = .primary, range: Bool = false) -> RequestFacts {
    RequestFacts(sessionID: session, kind: .segment, variant: variant, msn: msn, index: index, mediaTime: time,
                 copy: copy, isRangeRequest: range)
}

func ref(_ id: String) -> RuleReference { RuleReference(scenario: "s", id: id) }
