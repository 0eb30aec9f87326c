import BundleFormat
import Foundation

/// A recorded URL taken apart the way the replay origin compares them: scheme, authority (lower
/// case, without user information or a default port), path (percent-decoded, so `%7E` and `~`
/// are the same) and query (as written; nil when there was no `?`). No Foundation URL parsing:
/// recorded URLs are compared as they were written, whatever characters they carry.
struct ReplayAddress: Hashable, Sendable {
    var scheme: String
    var authority: String
    var path: String
    var query: String?

    /// Parses an absolute http(s) URL; nil for anything else.
    init?(url text: String) {
        guard let schemeEnd = text.range(of: "://") else { return nil }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = String(rest[..<authorityEnd])
        if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
        guard !authority.isEmpty else { return nil }
        self.scheme = scheme
        self.authority = Self.normalizedAuthority(authority, scheme: scheme)
        (path, query) = Self.split(pathAndQuery: rest[authorityEnd...])
    }

    init(scheme: String, authority: String, pathAndQuery: Substring) {
        self.scheme = scheme
        self.authority = authority
        (path, query) = Self.split(pathAndQuery: pathAndQuery)
    }

    /// "/a/b.ts?x=1" (fragment dropped, empty path made "/"), path percent-decoded.
    static func split(pathAndQuery text: Substring) -> (path: String, query: String?) {
        let withoutFragment = text.prefix { $0 != "#" }
        let queryStart = withoutFragment.firstIndex(of: "?")
        var path = String(withoutFragment[..<(queryStart ?? withoutFragment.endIndex)])
        if path.isEmpty { path = "/" }
        let query = queryStart.map { String(withoutFragment[withoutFragment.index(after: $0)...]) }
        return (path.removingPercentEncoding ?? path, query)
    }

    static func normalizedAuthority(_ authority: String, scheme: String) -> String {
        let lowered = authority.lowercased()
        let defaultPort = scheme == "https" ? ":443" : ":80"
        return lowered.hasSuffix(defaultPort) ? String(lowered.dropLast(defaultPort.count)) : lowered
    }

    var url: String { "\(scheme)://\(authority)\(Self.encodedPath(path))\(query.map { "?" + $0 } ?? "")" }

    /// The decoded path written back with the characters a request line cannot carry
    /// percent-encoded (space, quotes, non-ASCII…); `/` and the usual path characters stay.
    static func encodedPath(_ path: String) -> String {
        path.addingPercentEncoding(withAllowedCharacters: pathCharacters) ?? path
    }

    private static let pathCharacters: CharacterSet = {
        var set = CharacterSet.urlPathAllowed
        set.remove(charactersIn: "?#")
        return set
    }()
}

/// Where each recorded host lives on the replay origin: the entry's host at `/…`, every other
/// recorded host at `/_host/<authority>/…`. A path under `/_host/` whose host was not recorded
/// (or any other path) is read as a path of the entry's host.
///
/// When the entry's host has paths a proxy in front would read as its own (`/s/<session>/…`,
/// `/@<origin>/…`, `/~<tag>/…`: a recording made through another hlschaos), it is served at
/// `/_host/<authority>/…` too, so that device URLs reach the replay origin unchanged.
struct ReplayHosts: Sendable {
    static let prefix = "/_host/"

    /// The entry's authority (what `/…` serves).
    let entry: String
    /// Every recorded authority, with the scheme it was first seen with.
    let schemes: [String: String]
    /// The entry's host is served at `/…` (else at `/_host/<entry>/…` as well).
    let entryAtRoot: Bool

    init(entry: String, schemes: [String: String], entryPaths: some Sequence<String> = []) {
        self.entry = entry
        self.schemes = schemes
        entryAtRoot = !entryPaths.contains { Self.isProxyGrammar($0) }
    }

    /// A path the proxy parses as a session, a named origin or a URI it rewrote.
    static func isProxyGrammar(_ path: String) -> Bool {
        path.hasPrefix("/s/") || path.hasPrefix("/@") || path.hasPrefix("/~")
    }

    func isRecorded(_ authority: String) -> Bool { schemes[authority] != nil }

    /// The root-relative path (and query) that serves `address` on the replay origin.
    func servedPath(of address: ReplayAddress) -> String {
        let tail = ReplayAddress.encodedPath(address.path) + (address.query.map { "?" + $0 } ?? "")
        return address.authority == entry && entryAtRoot ? tail : Self.prefix + address.authority + tail
    }

    /// The recorded address a request target (`/path?query` as received) stands for.
    func address(ofTarget target: String) -> ReplayAddress {
        if target.hasPrefix(Self.prefix) {
            let rest = target.dropFirst(Self.prefix.count)
            let end = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            let authority = rest[..<end].lowercased()
            if let scheme = schemes[authority] {
                return ReplayAddress(scheme: scheme, authority: authority, pathAndQuery: rest[end...])
            }
        }
        return ReplayAddress(scheme: schemes[entry] ?? "http", authority: entry, pathAndQuery: Substring(target))
    }
}
