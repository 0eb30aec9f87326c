import Foundation

/// Turns a request target into safe path components, or says why it cannot.
enum RequestPath {
    struct Invalid: Error, Equatable {
        var reason: String
    }

    /// Strips query and fragment, percent-decodes, and rejects anything that could climb
    /// out of the media tree (`..`, `.`, backslashes, NUL, empty components). Lookups only
    /// ever hit the in-memory file table, so this is a second line of defence.
    static func components(of target: String) -> Result<[String], Invalid> {
        guard target.hasPrefix("/") else {
            return .failure(Invalid(reason: "must start with /"))
        }
        let rawPath = target.prefix { $0 != "?" && $0 != "#" }
        guard let decoded = String(rawPath).removingPercentEncoding else {
            return .failure(Invalid(reason: "invalid percent-encoding"))
        }
        if decoded.contains("\\") || decoded.contains("\0") {
            return .failure(Invalid(reason: "backslash or NUL in path"))
        }
        let parts = decoded.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts == [""] { return .success([]) }
        for part in parts {
            if part == ".." || part == "." {
                return .failure(Invalid(reason: "dot segments are not allowed"))
            }
            if part.isEmpty {
                return .failure(Invalid(reason: "empty path component"))
            }
        }
        return .success(parts)
    }
}
