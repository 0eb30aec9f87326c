import Link

/// A link a layer gives a session, and where it was given (for the API and the records).
public struct LinkChoice: Sendable, Equatable {
    public var spec: LinkSpec
    /// In words: `scenario "link-slow-3g"`, `the control API`, `serve --link`.
    public var from: String

    public init(spec: LinkSpec, from: String) {
        self.spec = spec
        self.from = from
    }
}
