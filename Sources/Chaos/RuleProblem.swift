/// One problem found in a rule file: where (file and JSON path) and what is wrong.
/// `description` is the line `hlschaos validate` prints: `FILE: $.rules[0].match.msm: unknown key "msm" (did you mean "msn"?)`.
public struct RuleProblem: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// JSONPath-like location, `$` for the document itself, e.g. `$.rules[2].action.status`.
    public var path: String
    public var message: String

    public init(file: String, path: String, message: String) {
        self.file = file
        self.path = path
        self.message = message
    }

    public var description: String { "\(file): \(path): \(message)" }
}

/// Thrown when a rule file cannot be used; carries every problem found, not just the first.
public struct RuleFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var problems: [RuleProblem]
    public init(problems: [RuleProblem]) { self.problems = problems }
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
