import Chaos
import ArgumentParser
import Foundation
import Logging
import Players
import Proxy
import RuleLoading

/// What `run` and `matrix` share: their exit codes, the preset book, the players and scenarios
/// named on the command line, durations.
///
/// Turns the scenario arguments of `run` into scenarios: a built-in (or `--presets`) preset by name,
/// or a rule file by path. Every problem of every argument is reported at once.
enum ScenarioArguments {
    static func resolve(_ arguments: [String], rules: RuleBook) throws -> [Scenario] {
        var scenarios: [Scenario] = []
        var problems: [String] = []
        for argument in arguments {
            if argument.hasSuffix(".json") || argument.contains("/") {
                do {
                    scenarios.append(try RuleDecoder.decodeFile(atPath: argument, builtInTraces: RuleBook.builtInTrace))
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
        guard let duration = commandLineDuration(text), duration > .zero else {
            throw CLIError("\(option) \(text): give a duration such as 60s, 2m or 90")
        }
        return duration.seconds
    }

    /// Runs `body` for the command `name`: its code on success; a `CLIError` printed as
    /// "hlschaos NAME: …" with exit code 2.
    static func exit(_ name: String, _ body: () async throws -> Int32) async throws -> Never {
        do {
            throw ExitCode(try await body())
        } catch let error as CLIError {
            FileHandle.standardError.write(Data("hlschaos \(name): \(error.description)\n".utf8))
            throw ExitCode(2)
        }
    }

    /// The built-in presets (plus `directory`), quiet but for warnings.
    static func presetBook(directory: String?) throws -> (RuleBook, Logger) {
        let logger = makeLogger("warning")
        do {
            return (try RuleBook(ruleFiles: [], presetDirectory: directory, logger: logger), logger)
        } catch {
            throw CLIError("presets not loaded: \(error)")
        }
    }

    /// Players by name, or custom ones (`{url}` commands, `NAME=COMMAND`); `option` names the flag in the message.
    static func drivers(_ specs: [String], option: String) throws -> [any PlayerDriver] {
        do {
            return try PlayerCatalog.drivers(specs)
        } catch let problem as PlayerCatalog.UnknownPlayer {
            throw CLIError("\(option) \(problem.spec): \(problem.description)")
        }
    }

    static func checkJobs(_ jobs: Int) throws {
        guard jobs >= 1 else { throw CLIError("--jobs \(jobs): give 1 or more") }
    }
}

/// A duration as the command line takes it: the rule files' syntax ("90s", "10m", "500ms"), or a
/// plain number of seconds ("600"); bounded like the rule syntax (no overflow, no "inf").
func commandLineDuration(_ text: String) -> Duration? {
    ValueSyntax.duration(text) ?? ValueSyntax.duration(text + "s")
}
