import Chaos
import Foundation
import Proxy

/// Turns the scenario arguments of `run` into scenarios: a built-in (or `--presets`) preset by name,
/// or a rule file by path. Every problem of every argument is reported at once.
enum ScenarioArguments {
    static func resolve(_ arguments: [String], rules: RuleBook) throws -> [Scenario] {
        var scenarios: [Scenario] = []
        var problems: [String] = []
        for argument in arguments {
            if argument.hasSuffix(".json") || argument.contains("/") {
                do {
                    scenarios.append(try RuleDecoder.decodeFile(atPath: argument))
                } catch {
                    problems.append(error.description)
                }
            } else if let preset = rules.preset(named: argument) {
                scenarios.append(preset)
            } else {
                let hint = ValueSyntax.suggestion(for: argument, in: rules.presetNames).map { " (did you mean \"\($0)\"?)" } ?? ""
                problems.append("\(argument): no preset of that name\(hint); give a rule file path ending in .json or one of the presets: \(rules.presetNames.joined(separator: ", "))")
            }
        }
        guard problems.isEmpty else { throw CLIError(problems.joined(separator: "\n")) }
        return scenarios
    }

    /// "60s", "90", "2m" → seconds.
    static func seconds(_ text: String, option: String) throws -> Double {
        if let plain = Double(text), plain > 0 { return plain }
        guard let duration = ValueSyntax.duration(text), duration > .zero else {
            throw CLIError("\(option) \(text): give a duration such as 60s, 2m or 90")
        }
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
