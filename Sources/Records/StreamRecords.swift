extension Array where Element == RequestRecord {
    /// The records of the stream itself, which reactions and verdicts are read from.
    ///
    /// A forward-proxy session holds everything its device sent: the `CONNECT`s that opened
    /// tunnels (the requests inside are recorded on their own) and the device's other traffic (an
    /// app's API calls, a browser's update checks), whose failures say nothing about playback.
    /// Dropped here: `CONNECT` records, and absolute-URL requests to an authority that never
    /// served a playlist or segment in this session. Reverse-proxy records (`/s/…` paths) are all kept.
    public var streamRecords: [RequestRecord] {
        let streamAuthorities = Set(lazy.filter { $0.kind != nil }.compactMap(\.absoluteAuthority))
        return filter { record in
            guard record.method != "CONNECT" else { return false }
            guard let authority = record.absoluteAuthority else { return true }
            return streamAuthorities.contains(authority)
        }
    }
}

extension RequestRecord {
    /// `host:port` of a forward-proxy request's absolute URL (`https://cdn.example:443/…`); nil for
    /// a reverse-proxy path.
    var absoluteAuthority: Substring? {
        guard let scheme = path.range(of: "://"), path.hasPrefix("http") else { return nil }
        let rest = path[scheme.upperBound...]
        return rest[..<(rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex)]
    }
}
