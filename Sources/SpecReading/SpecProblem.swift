/// One problem in a document: where (the file, when there is one, and a JSON path such as
/// `$.rules[2].action.throttle`) and what is wrong, with what would fix it.
/// `description` is the line people read: `rules.json: $.rules[2].action.throttle: invalid rate …`.
public struct SpecProblem: Sendable, Equatable, CustomStringConvertible {
    /// The file's name; nil for a document that is not a file (an API body).
    public var file: String?
    public var path: String
    public var message: String

    public init(file: String? = nil, path: String, message: String) {
        self.file = file
        self.path = path
        self.message = message
    }

    public var description: String { (file.map { "\($0): " } ?? "") + "\(path): \(message)" }
}
