import Addressing
import BundleFormat
import Foundation
import HLS

/// The bundle's exchanges indexed for the replay origin: by recorded URL (host, path and query),
/// by host and path alone (a request whose query differs — a rotating token, a redacted bundle —
/// still finds its resource), which resources are playlists, and whether the recording is live.
struct ReplayCatalog: Sendable {
    struct ResourceKey: Hashable, Sendable {
        var authority: String
        var path: String
        var query: String?
    }

    struct PathKey: Hashable, Sendable {
        var authority: String
        var path: String
    }

    let bundle: RecordingBundle
    let hosts: ReplayHosts
    /// Where the recording started (the manifest's entry, else its first playlist).
    let entry: ReplayAddress
    /// Parsed URL of every exchange (nil for one that is not http(s)).
    let addresses: [ReplayAddress?]
    /// Exchange indices per resource, in the order the requests were sent.
    let exact: [ResourceKey: [Int]]
    let byPath: [PathKey: [Int]]
    let playlistPaths: Set<PathKey>
    /// Some media playlist never ended (no `EXT-X-ENDLIST` in its last version): the playlists
    /// follow the recorded schedule. Otherwise every resource is served in request order.
    let isLive: Bool
    let mediaPlaylistCount: Int

    init(bundle: RecordingBundle) throws(BundleError) {
        self.bundle = bundle
        let exchanges = bundle.exchanges
        addresses = exchanges.map { ReplayAddress(url: $0.url) }
        var schemes: [String: String] = [:]
        var exact: [ResourceKey: [Int]] = [:]
        var byPath: [PathKey: [Int]] = [:]
        var playlists: Set<PathKey> = []
        let order = exchanges.indices.sorted { (exchanges[$0].at, $0) < (exchanges[$1].at, $1) }
        for index in order {
            guard let address = addresses[index] else { continue }
            if schemes[address.authority] == nil { schemes[address.authority] = address.scheme }
            exact[ResourceKey(authority: address.authority, path: address.path, query: address.query), default: []].append(index)
            let pathKey = PathKey(authority: address.authority, path: address.path)
            byPath[pathKey, default: []].append(index)
            if exchanges[index].isPlaylist { playlists.insert(pathKey) }
        }
        guard !byPath.isEmpty else {
            throw BundleError(bundle.location, "holds no http(s) exchange: there is nothing to replay")
        }
        let entry = bundle.manifest.entry.flatMap(ReplayAddress.init(url:))
            ?? Self.firstPlaylist(order: order, addresses: addresses, exchanges: exchanges, playlists: playlists)
        if schemes[entry.authority] == nil { schemes[entry.authority] = entry.scheme }
        self.entry = entry
        let entryPaths = byPath.keys.filter { $0.authority == entry.authority }.map(\.path) + [entry.path]
        self.hosts = ReplayHosts(entry: entry.authority, schemes: schemes, entryPaths: entryPaths)
        self.exact = exact
        self.byPath = byPath
        self.playlistPaths = playlists

        // Live when a media playlist's last good version has no EXT-X-ENDLIST.
        var live = false
        var mediaCount = 0
        for key in playlists {
            let indices = byPath[key] ?? []
            guard let last = indices.last(where: { exchanges[$0].isGoodVersion }),
                  let bytes = try? bundle.body(of: exchanges[last]),
                  let playlist = try? Playlist(bytes: bytes), playlist.kind == .media else { continue }
            mediaCount += 1
            if !playlist.endList { live = true }
        }
        isLive = live
        mediaPlaylistCount = mediaCount
    }

    private static func firstPlaylist(
        order: [Int], addresses: [ReplayAddress?], exchanges: [Exchange], playlists: Set<PathKey>
    ) -> ReplayAddress {
        let candidates = order.compactMap { index in addresses[index].map { (index, $0) } }
        if let master = candidates.first(where: { exchanges[$0.0].kind == "master" }) { return master.1 }
        if let playlist = candidates.first(where: { playlists.contains(PathKey(authority: $0.1.authority, path: $0.1.path)) }) {
            return playlist.1
        }
        return candidates[0].1
    }

    func isPlaylist(_ address: ReplayAddress) -> Bool {
        playlistPaths.contains(PathKey(authority: address.authority, path: address.path))
    }

    // MARK: - Finding what answers a request

    /// The recorded exchanges that may answer one request, and how.
    struct Candidates {
        /// In request order.
        var indices: [Int]
        /// Names the group for per-resource request counting.
        var identity: String
        /// Bytes to cut out of the answer chosen (a range asked for that was recorded as a whole body,
        /// or inside a recorded larger range).
        var range: RangeHeader.Spec?
        /// Matched on the path alone (the query differed).
        var pathOnly: Bool
    }

    enum Lookup {
        case found(Candidates)
        case missing(String)
    }

    func candidates(for address: ReplayAddress, method: String, range rangeHeader: String?) -> Lookup {
        let key = ResourceKey(authority: address.authority, path: address.path, query: address.query)
        var indices: [Int]
        var pathOnly = false
        if let found = exact[key] {
            indices = found
        } else if let found = byPath[PathKey(authority: address.authority, path: address.path)] {
            indices = found
            pathOnly = true
        } else if address.authority == hosts.entry, let other = uniqueOtherHost(path: address.path) {
            // A path of another recorded host asked for without its /_host/ prefix.
            indices = other
            pathOnly = true
        } else {
            return .missing("")
        }
        let exchanges = bundle.exchanges
        let wanted = method == "HEAD" ? ["GET", "HEAD"] : [method]
        let methodMatches = indices.filter { wanted.contains(exchanges[$0].method.uppercased()) }
        guard !methodMatches.isEmpty else {
            let recorded = Set(indices.map { exchanges[$0].method }).sorted().joined(separator: ", ")
            return .missing("it was recorded with \(recorded) only, not \(method)")
        }
        indices = methodMatches
        let identity = "\(address.authority) \(address.path)\(pathOnly ? "" : "?" + (address.query ?? "")) \(method == "HEAD" ? "GET" : method)"
        let whole = indices.filter { exchanges[$0].range == nil }
        let ranged = indices.filter { exchanges[$0].range != nil }
        let rangeList = Set(ranged.compactMap { exchanges[$0].range.map(RangeHeader.normalized) }).sorted()
            .prefix(6).joined(separator: ", ")
        guard let rangeHeader else {
            guard !whole.isEmpty else {
                return .missing("it was recorded only as byte ranges (\(rangeList)); ask for one of them with a Range header")
            }
            return .found(Candidates(indices: whole, identity: identity, range: nil, pathOnly: pathOnly))
        }
        let normalized = RangeHeader.normalized(rangeHeader)
        let same = ranged.filter { RangeHeader.normalized(exchanges[$0].range!) == normalized }
        if !same.isEmpty {
            return .found(Candidates(indices: same, identity: identity + " " + normalized, range: nil, pathOnly: pathOnly))
        }
        guard let requested = RangeHeader.single(rangeHeader) else {
            // Not a single bytes range: answered like a request without one, as servers may.
            guard !whole.isEmpty else { return .missing("the Range \(rangeHeader) was not recorded (recorded: \(rangeList))") }
            return .found(Candidates(indices: whole, identity: identity, range: nil, pathOnly: pathOnly))
        }
        if !whole.isEmpty {
            return .found(Candidates(indices: whole, identity: identity, range: requested, pathOnly: pathOnly))
        }
        let covering = ranged.filter { index in
            guard let recorded = Self.contentRange(of: exchanges[index]) else { return false }
            return requested.isInside(recorded)
        }
        guard !covering.isEmpty else {
            return .missing("the byte range \(normalized) was not recorded (recorded: \(rangeList))")
        }
        return .found(Candidates(indices: covering, identity: identity + " " + normalized, range: requested, pathOnly: pathOnly))
    }

    /// Exchanges of `path` on exactly one other recorded host.
    private func uniqueOtherHost(path: String) -> [Int]? {
        let matches = hosts.schemes.keys.filter { $0 != hosts.entry }.compactMap { byPath[PathKey(authority: $0, path: path)] }
        return matches.count == 1 ? matches[0] : nil
    }

    /// `Content-Range: bytes a-b/n` of a complete 206.
    static func contentRange(of exchange: Exchange) -> ContentRange? {
        guard exchange.status == 206, exchange.ending == .complete, let value = exchange.header("content-range") else { return nil }
        return ContentRange(header: value)
    }

    // MARK: - Messages

    /// Up to `limit` recorded URLs closest to `address`: same host first, then the most directories
    /// in common, then (when both names carry a number, like seg-1042.ts) the closest number, then
    /// the longest shared prefix and the closest length.
    func nearest(to address: ReplayAddress, limit: Int = 5) -> [ReplayAddress] {
        let wanted = Array(address.path.utf8)
        let wantedDirectories = address.path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        let wantedNumber = Self.number(inName: address.path)
        var scored: [(score: [Int], address: ReplayAddress)] = []
        for key in exact.keys {
            let path = Array(key.path.utf8)
            var common = 0
            while common < min(path.count, wanted.count), path[common] == wanted[common] { common += 1 }
            let directories = key.path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
            let sharedDirectories = zip(directories, wantedDirectories).prefix { $0 == $1 }.count
            var closeness = Int.min / 2
            if let wantedNumber, let number = Self.number(inName: key.path) {
                let (difference, overflow) = number.subtractingReportingOverflow(wantedNumber)
                closeness = overflow ? Int.min / 2 + 1 : -abs(difference)
            }
            let candidate = ReplayAddress(scheme: hosts.schemes[key.authority] ?? "http", authority: key.authority,
                                          pathAndQuery: Substring(ReplayAddress.encodedPath(key.path) + (key.query.map { "?" + $0 } ?? "")))
            let sameHost = key.authority == address.authority ? 1 : 0
            scored.append(([sameHost, sharedDirectories, closeness, common, -abs(path.count - wanted.count)], candidate))
        }
        scored.sort { a, b in
            if a.score != b.score { return a.score.lexicographicallyPrecedes(b.score, by: >) }
            return a.address.url < b.address.url
        }
        return scored.prefix(limit).map(\.address)
    }

    /// The last run of digits in the file name of a path ("seg-1042.ts" → 1042).
    static func number(inName path: String) -> Int? {
        let name = path.split(separator: "/").last ?? ""
        guard let end = name.lastIndex(where: \.isASCIIDigit) else { return nil }
        let start = name[...end].lastIndex { !$0.isASCIIDigit }.map { name.index(after: $0) } ?? name.startIndex
        return Int(name[start...end].prefix(18))
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Exchange {
    /// A playlist version worth serving as content: a complete answer below 400 with a body.
    var isGoodVersion: Bool {
        ending == .complete && (status ?? 0) >= 200 && (status ?? 0) < 400 && body != nil
    }

    /// When this exchange takes effect in a live replay: a good version from when it had arrived, a
    /// failure (an error status, a cut answer, no answer) from when its request was sent, so that
    /// a request made at that moment of the replay meets it.
    var replayMoment: Double {
        ending == .complete && (status ?? 0) < 400 ? receivedAt : at
    }
}
