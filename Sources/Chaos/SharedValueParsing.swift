import SpecReading

/// The rule files' value syntax, shared with the proxy's configuration file so both read durations
/// and misspelt keys the same way.
public enum ValueSyntax {
    /// "2s", "500ms", "1.5s", "1m", "1h"; nil when not a duration.
    public static func duration(_ text: String) -> Duration? { try? ValueText.duration(text).get() }

    /// The closest candidate that looks like a typo of `key`, for "did you mean" hints.
    public static func suggestion(for key: String, in candidates: [String]) -> String? {
        Suggestions.nearest(to: key, in: candidates)
    }
}
