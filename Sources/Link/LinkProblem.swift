import SpecReading

/// One problem with a link spec or a trace: where (a JSON path, `$.link.steps[1].rate`, and the
/// file when the spec is read from one) and what is wrong, with what would fix it. A trace's
/// problems name the trace file and line in the message.
public typealias LinkProblem = SpecProblem

/// Thrown when a link spec cannot be used; carries every problem found, not just the first.
public struct LinkSpecError: Error, Sendable, Equatable, CustomStringConvertible {
    public var problems: [LinkProblem]
    public init(problems: [LinkProblem]) { self.problems = problems }
    public init(_ path: String, _ message: String) { problems = [LinkProblem(path: path, message: message)] }
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
