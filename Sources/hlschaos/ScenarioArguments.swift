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
        func isPath(_ argument: String) -> Bool { argument.hasSuffix(".json") || argument.contains("/") }
        // "a,b" names two presets, as CI files often write lists (a path keeps its commas).
        let names = arguments.flatMap { argument in
            isPath(argument) ? [argument] : argument.split(separator: ",", omittingEmptySubsequences: true).map(String.init)
        }
        for argument in names {
            if isPath(argument) {
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
    /// "hlschaos NAME: …" with exit code 2. SIGINT or SIGTERM cancels it: the players in progress
    /// are stopped with their process groups (a player runs in a group of its own, which a
    /// terminal's Ctrl-C does not reach), nothing is written, and the exit code is 130; a second
    /// signal exits at once.
    static func exit(_ name: String, _ body: @escaping @Sendable () async throws -> Int32) async throws -> Never {
        let work = Task { try await body() }
        let stopping = Stopping()
        let signals = SignalWatcher(signals: [SIGINT, SIGTERM]) { signal in
            let signalName = SignalWatcher.name(signal)
            guard stopping.begin() else {
                FileHandle.standardError.write(Data("hlschaos \(name): second \(signalName): exiting now\n".utf8))
                Foundation.exit(130)
            }
            FileHandle.standardError.write(Data("hlschaos \(name): \(signalName): stopping the players in progress; nothing will be written (again to exit now)\n".utf8))
            work.cancel()
        }
        defer { signals.cancel() }
        do {
            let code = try await work.value
            if work.isCancelled {
                FileHandle.standardError.write(Data("hlschaos \(name): interrupted\n".utf8))
                throw ExitCode(130)
            }
            throw ExitCode(code)
        } catch let error as CLIError {
            FileHandle.standardError.write(Data("hlschaos \(name): \(error.description)\n".utf8))
            throw ExitCode(work.isCancelled ? 130 : 2)
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
