import Chaos
import Foundation
import JSON
import Presets
import Proxy

/// What a request names as a scenario: a preset by name (`"status-503"`), an inline scenario (the
/// JSON of a rule file, validated exactly like `hlschaos validate` does), or null for none.
enum ScenarioInput {
    /// The name problems of inline scenarios carry as their file.
    static let inlineFile = "scenario"

    /// The scenario `value` names; nil for JSON null.
    static func scenario(_ value: JSONValue, presets: ProxyControl, path: String) throws(APIError) -> Scenario? {
        switch value {
        case .null:
            return nil
        case .string(let name):
            return try preset(name, presets: presets, path: path)
        case .object:
            return try inline(value)
        default:
            throw APIError.badRequest(
                "\"scenario\" must be a preset name, a scenario object or null, not \(value.typeName)",
                problems: [.init(file: "request", path: path, message: "expected a preset name, a scenario object or null, got \(value.typeName)")])
        }
    }

    /// The body of `PUT …/rules`: a scenario (a rule file as it is), or `{"scenario": <preset name | scenario>}`.
    static func rulesBody(_ body: JSONValue, presets: ProxyControl) throws(APIError) -> Scenario {
        if case .object(let members) = body, members.count == 1, let value = body.member("scenario") {
            guard let scenario = try scenario(value, presets: presets, path: "$.scenario") else {
                throw APIError.badRequest(
                    "to remove the scenario use DELETE instead of PUT with null",
                    problems: [.init(file: "request", path: "$.scenario", message: "expected a preset name or a scenario object, got null")])
            }
            return scenario
        }
        return try inline(body)
    }

    /// An inline scenario, with the validator's problems when it is not valid: the same ones
    /// `hlschaos validate` prints for the same text (the parsed value keeps key order, duplicate
    /// keys and the spelling of numbers).
    static func inline(_ value: JSONValue) throws(APIError) -> Scenario {
        do {
            // A scenario sent to the API names only the traces shipped with hlschaos: a client may not
            // have the server read its files.
            return try RuleDecoder.decode(value, file: inlineFile, traceFile: BuiltInPresets.trace)
        } catch {
            throw APIError.invalidScenario(error)
        }
    }

    /// A preset by name; 400 with the nearest name and the list when there is none.
    static func preset(_ name: String, presets: ProxyControl, path: String) throws(APIError) -> Scenario {
        if let scenario = presets.preset(named: name) { return scenario }
        let available = presets.presetNames
        let hint = ValueSyntax.suggestion(for: name, in: available).map { " (did you mean \"\($0)\"?)" } ?? ""
        let message = "no preset named \"\(name)\"\(hint)"
        throw APIError.badRequest(
            "\(message); presets: \(available.joined(separator: ", "))",
            problems: [.init(file: "request", path: path, message: message)])
    }
}
