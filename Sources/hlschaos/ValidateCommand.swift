import ArgumentParser
import Chaos
import Foundation
import RuleLoading

/// `hlschaos validate FILE…`: every problem on its own line, exit code 1 if there is any.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check rule files and report every problem (file, JSON path, what is wrong).",
        discussion: "Prints one line per problem, e.g. `rules/x.json: $.rules[0].match.msm: unknown key \"msm\" (did you mean \"msn\"?)`, and exits with code 1 if any file has a problem."
    )

    @Argument(help: "Rule files to check.")
    var files: [String]

    func run() throws {
        var failed = false
        for file in files {
            // `hlschaos validate rules/*.json` also meets the editors' JSON Schema, which is not a rule file.
            if (file as NSString).lastPathComponent == "schema.json" {
                print("\(file): skipped (the JSON Schema of rule files, not a rule file)")
                continue
            }
            do {
                let scenario = try RuleDecoder.decodeFile(atPath: file, builtInTraces: RuleBook.builtInTrace)
                let expectations = scenario.expectations.isEmpty ? ""
                    : ", \(scenario.expectations.count) expectation\(scenario.expectations.count == 1 ? "" : "s")"
                let link = scenario.link == nil ? "" : ", a link"
                print("\(file): ok (\(scenario.name), \(scenario.rules.count) rule\(scenario.rules.count == 1 ? "" : "s")\(link)\(expectations))")
            } catch {
                failed = true
                for problem in error.problems { print(problem.description) }
            }
        }
        if failed { throw ExitCode(1) }
    }
}
