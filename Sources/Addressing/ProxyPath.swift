/// The grammar of the paths a player sends to hlschaos.
///
/// ```
/// [/s/<session>[+<preset>…]] /<path>                        entry through the default origin (--upstream)
/// [/s/<session>[+<preset>…]] /@<origin>/<path>              entry through a named origin of the config
/// [/s/<session>[+<preset>…]] /<tag>/<scheme>/<authority>/<path>   a URI the proxy wrote into a playlist
/// ```
/// `<tag>` is a `ResourceTag` (`~seg.v1.n42`). Query strings pass through unchanged. So a path of the
/// default origin cannot begin with `/s/`, `/@` or `/~`: those forms are the proxy's.
///
/// A forward-proxy request (`GET http://host/…`, or a request inside an intercepted `CONNECT`) is
/// the `forward` route: the URL is the upstream, the tag is a query parameter (`ForwardTag`), and the
/// session comes from the connection (`ProxyCredentials`), not from the URL.
public struct ProxyPath: Equatable, Sendable {
    public enum Route: Equatable, Sendable {
        /// `/<path>` or `/@name/<path>`: resolved against a configured origin (nil name = the default one).
        case origin(name: String?, pathAndQuery: String)
        /// A URI the proxy rewrote: the upstream is spelled out and the tag says what the resource is.
        case rewritten(tag: ResourceTag, upstream: UpstreamLocation)
        /// A forward-proxy request for `upstream`, tagged when a playlist rewritten in forward mode named it.
        case forward(tag: ResourceTag?, upstream: UpstreamLocation)
    }

    public var session: String?
    public var presets: [String]
    public var route: Route

    public init(session: String? = nil, presets: [String] = [], route: Route) {
        self.session = session
        self.presets = presets
        self.route = route
    }

    public var tag: ResourceTag? {
        switch route {
        case .rewritten(let tag, _): tag
        case .forward(let tag, _): tag
        case .origin: nil
        }
    }

    /// The prefix to put in front of every URI written for this request's session ("" or "/s/tv1+gap").
    public var sessionPrefix: String {
        guard let session else { return "" }
        return "/s/" + ([session] + presets).joined(separator: "+")
    }

    /// The request target that parses back to this path (`init(parsing:)` read backwards).
    public var target: String {
        switch route {
        case .origin(let name, let pathAndQuery): sessionPrefix + (name.map { "/@" + $0 } ?? "") + pathAndQuery
        case .rewritten(let tag, let upstream): rewrittenURI(tag: tag, upstream: upstream)
        case .forward(let tag, let upstream): tag.map { ForwardTag.url(upstream, tag: $0) } ?? upstream.url
        }
    }

    /// The URI a playlist fetched by this request carries for `upstream`: a path on the proxy in this
    /// request's session, or in forward mode the upstream URL itself with the tag in its query.
    public func rewrittenURI(tag: ResourceTag, upstream: UpstreamLocation) -> String {
        rewrittenURI(tag: tag, origin: upstream, pathAndQuery: Substring(upstream.pathAndQuery))
    }

    /// The same, for `pathAndQuery` (from "/" or "?") on the scheme and authority of `origin`: a
    /// playlist's rewrite passes a slice of each absolute URI rather than parsing it, and
    /// `sessionPrefix` computed once for all its URIs.
    public func rewrittenURI(
        tag: ResourceTag, origin: UpstreamLocation, pathAndQuery: Substring, sessionPrefix: String? = nil
    ) -> String {
        if case .forward = route {
            return ForwardTag.url(origin.with(pathAndQuery: String(pathAndQuery)), tag: tag)
        }
        var pieces = (sessionPrefix ?? self.sessionPrefix, origin.scheme, origin.authority)
        var pathAndQuery = pathAndQuery
        var output: [UInt8] = []
        pieces.0.withUTF8 { prefix in
            pieces.1.withUTF8 { scheme in
                pieces.2.withUTF8 { authority in
                    pathAndQuery.withUTF8 { tail in
                        Self.appendRewrittenPath(prefix: prefix, tag: tag, scheme: scheme, authority: authority, pathAndQuery: tail, to: &output)
                    }
                }
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends `<prefix>/<tag>/<scheme>/<authority>/<path and query>` to `output`, the path form of a
    /// rewritten URI (`pathAndQuery` begins with "/" or "?"): what a playlist's streaming rewrite
    /// writes for each URI, with no `String` on the way.
    public static func appendRewrittenPath(
        prefix: UnsafeBufferPointer<UInt8>, tag: ResourceTag, scheme: UnsafeBufferPointer<UInt8>,
        authority: UnsafeBufferPointer<UInt8>, pathAndQuery: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]
    ) {
        // Written on the stack and appended once: an append per piece costs more than the copies.
        let bound = prefix.count + ResourceTag.maxWireLength + scheme.count + authority.count + pathAndQuery.count + 4
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { buffer in
            let base = buffer.baseAddress!
            var count = 0
            func put(_ piece: UnsafeBufferPointer<UInt8>, slash: Bool) {
                if let source = piece.baseAddress { (base + count).update(from: source, count: piece.count) }
                count += piece.count
                if slash {
                    base[count] = UInt8(ascii: "/")
                    count += 1
                }
            }
            put(prefix, slash: true)
            count += tag.writeWire(to: base + count)
            base[count] = UInt8(ascii: "/")
            count += 1
            put(scheme, slash: true)
            put(authority, slash: pathAndQuery.first != UInt8(ascii: "/"))
            put(pathAndQuery, slash: false)
            output.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
        }
    }

    /// Writes the path forms of many tags that differ by their MSN alone, on one origin: what
    /// `appendRewrittenPath` writes for `tag` with each MSN, without writing the tag's other fields,
    /// the prefix, scheme and authority again for every segment of a playlist. A playlist's MSNs
    /// count up one by one, so the last path is kept and the next MSN's digits are the last one's
    /// plus one, changed in place. Not for sharing between threads: each rewrite has its own.
    public final class SegmentPaths {
        /// `<prefix>/<tag's head>.n`
        private let head: [UInt8]
        /// `<tag's tail>/<scheme>/<authority>`
        private let middle: [UInt8]
        /// The last path written: `head`, the last MSN's digits, `middle`, its path and query.
        private var line: UnsafeMutableBufferPointer<UInt8>
        /// The MSN whose digits are in `line` (nil before the first), and where they end.
        private var last: Int?
        private var digitsEnd: Int
        private var middleEnd: Int { digitsEnd + middle.count }

        public init(prefix: UnsafeBufferPointer<UInt8>, tag: ResourceTag, scheme: UnsafeBufferPointer<UInt8>, authority: UnsafeBufferPointer<UInt8>) {
            let wire = tag.wireAroundMSN()
            head = Array(prefix) + [UInt8(ascii: "/")] + wire.head + Array(".n".utf8)
            middle = wire.tail + [UInt8(ascii: "/")] + Array(scheme) + [UInt8(ascii: "/")] + Array(authority)
            line = .allocate(capacity: head.count + 21 + middle.count + 256)
            _ = line.initialize(from: head)
            digitsEnd = head.count
        }

        deinit { line.deallocate() }

        /// Appends the path for `msn` and `pathAndQuery` (from "/" or "?") to `output`.
        public func append(msn: Int, pathAndQuery: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
            if let last, msn > 0, last &+ 1 == msn, incrementDigits() {
                // the next MSN: its digits are in place
            } else {
                writeDigits(msn)
            }
            last = msn
            let slash = pathAndQuery.first != UInt8(ascii: "/")
            let end = middleEnd + (slash ? 1 : 0) + pathAndQuery.count
            if end > line.count { grow(to: end) }
            let base = line.baseAddress!
            var count = middleEnd
            if slash {
                base[count] = UInt8(ascii: "/")
                count += 1
            }
            if let source = pathAndQuery.baseAddress { (base + count).update(from: source, count: pathAndQuery.count) }
            output.append(contentsOf: UnsafeBufferPointer(start: base, count: end))
        }

        /// Adds one to the digits in `line`; false, with nothing changed, when the sum needs one more digit.
        private func incrementDigits() -> Bool {
            var position = digitsEnd - 1
            while position >= head.count && line[position] == UInt8(ascii: "9") { position -= 1 }
            guard position >= head.count else { return false }
            line[position] += 1
            for zero in (position + 1)..<digitsEnd { line[zero] = UInt8(ascii: "0") }
            return true
        }

        /// `msn`'s digits after `head`, with `middle` moved to follow them when their count changed.
        private func writeDigits(_ msn: Int) {
            let base = line.baseAddress!
            let end = ResourceTag.writeDecimal(msn, to: base, at: head.count)
            guard end != digitsEnd else { return }
            digitsEnd = end  // `line` always has room for 20 digits between `head` and `middle`
            middle.withUnsafeBufferPointer { (line.baseAddress! + end).update(from: $0.baseAddress!, count: $0.count) }
        }

        /// `line` with room for `count` bytes, what it holds up to the path kept.
        private func grow(to count: Int) {
            let larger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(count, line.count * 2))
            larger.baseAddress!.initialize(from: line.baseAddress!, count: middleEnd)
            line.deallocate()
            line = larger
        }
    }

    /// A URI the proxy wrote into a playlist, read back (a reverse path or a forward URL); nil for
    /// anything else. Its `tag` and `upstream` say what it is and where it points.
    public init?(written uri: String) {
        if uri.utf8.first == UInt8(ascii: "/") {
            guard let path = try? ProxyPath(parsing: uri), case .rewritten = path.route else { return nil }
            self = path
        } else {
            guard let path = try? ProxyPath(forwarding: uri, session: nil, presets: []), path.tag != nil else { return nil }
            self = path
        }
    }

    /// A forward-proxy request (its URIs are written back on their own hosts).
    public var isForward: Bool { if case .forward = route { true } else { false } }

    /// The upstream a rewritten or forward request names (nil for an entry path, which a configured
    /// origin resolves).
    public var upstream: UpstreamLocation? {
        switch route {
        case .rewritten(_, let upstream), .forward(_, let upstream): upstream
        case .origin: nil
        }
    }

    /// A forward-proxy request for the absolute http(s) `url`, its tag parameter read and removed.
    public init(forwarding url: String, session: String?, presets: [String]) throws(ParseError) {
        let split: (url: String, tag: ResourceTag?)
        do { split = try ForwardTag.split(url) } catch { throw .badRewrittenURL(url) }
        guard let upstream = UpstreamLocation(absolute: split.url) else { throw .notAbsoluteURL(url) }
        self.init(session: session, presets: presets, route: .forward(tag: split.tag, upstream: upstream))
    }

    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case notAbsolutePath(String)
        case badSession(String)
        case badRewrittenURL(String)
        case badOriginName(String)
        case notAbsoluteURL(String)

        public var description: String {
            switch self {
            case .notAbsolutePath(let target):
                return "request target \"\(target.prefix(200))\" is not an absolute path; ask for /<path> (for example /vod/ts/master.m3u8)"
            case .badSession(let text):
                return "session \"\(text.prefix(80))\" is not valid: use /s/<id>/… with an id of 1–64 letters, digits, '.', '_' or '-', optionally followed by +<preset> names"
            case .badRewrittenURL(let path):
                return "\"\(path.prefix(200))\" looks like a URL written by hlschaos but is damaged; request the playlist again instead of editing its URIs"
            case .notAbsoluteURL(let url):
                return "\"\(url.prefix(200))\" is not an absolute http:// or https:// URL with a valid host"
            case .badOriginName(let name):
                return "origin name \"\(name.prefix(80))\" is not valid: use /@<name>/… with a name from the config's \"origins\""
            }
        }
    }

    /// Parses a request target as received on the wire ("/s/tv1/vod/master.m3u8?x=1").
    /// Works on UTF-8 bytes: every delimiter is ASCII, and it runs for every request.
    public init(parsing target: String) throws(ParseError) {
        let slash = UInt8(ascii: "/")
        guard target.utf8.first == slash else { throw .notAbsolutePath(target) }
        // An entry path of the default origin (most requests nothing rewrote): only `/s/`, `/~` and
        // `/@` begin the proxy's own forms, so the target is the path and query as it is.
        let second = target.utf8.dropFirst().first
        guard second == UInt8(ascii: "~") || second == UInt8(ascii: "@") || target.utf8.starts(with: "/s/".utf8) else {
            self.init(route: .origin(name: nil, pathAndQuery: target))
            return
        }
        let queryStart = target.utf8.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex
        var path = target[..<queryStart]
        let query = target[queryStart...]

        var session: String?
        var presets: [String] = []
        if path.utf8.starts(with: "/s/".utf8) {
            let rest = path[path.utf8.index(path.startIndex, offsetBy: 3)...]
            let end = rest.utf8.firstIndex(of: slash) ?? rest.endIndex
            let names = rest[..<end].utf8.split(separator: UInt8(ascii: "+"), omittingEmptySubsequences: false)
                .map { String(Substring($0)) }
            guard let id = names.first, names.allSatisfy(Self.isValidName) else {
                throw .badSession(String(rest[..<end]))
            }
            session = id
            presets = Array(names.dropFirst())
            path = rest[end...]
            if path.isEmpty { path = "/" }
        }

        let afterSlash = path[path.utf8.index(after: path.startIndex)...]
        // Only a tagged path is split; an entry URL (most requests nothing rewrote) is not.
        let first = afterSlash[..<(afterSlash.utf8.firstIndex(of: slash) ?? afterSlash.endIndex)]
        if first.utf8.first == UInt8(ascii: "~") {
            let components = afterSlash.utf8.split(separator: slash, maxSplits: 3, omittingEmptySubsequences: false)
                .map { Substring($0) }
            guard components.count == 4, let tag = ResourceTag(component: first),
                let upstream = UpstreamLocation(
                    scheme: String(components[1]), authority: String(components[2]),
                    pathAndQuery: "/" + components[3] + query)
            else { throw .badRewrittenURL(String(path)) }
            self.init(session: session, presets: presets, route: .rewritten(tag: tag, upstream: upstream))
            return
        }
        if first.utf8.first == UInt8(ascii: "@") {
            let name = String(Substring(first.utf8.dropFirst()))
            guard Self.isValidName(name) else { throw .badOriginName(name) }
            let rest = afterSlash[first.endIndex...]
            self.init(
                session: session, presets: presets,
                route: .origin(name: name, pathAndQuery: (rest.isEmpty ? "/" : String(rest)) + query))
            return
        }
        // Only a session prefix leads here (a target without one returned at the top).
        self.init(session: session, presets: presets, route: .origin(name: nil, pathAndQuery: String(path) + query))
    }

    /// A session, preset or origin name: 1–64 letters, digits, `.`, `_` or `-`.
    public static func isValidName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                    return true
                default:
                    return false
                }
            }
    }
}
