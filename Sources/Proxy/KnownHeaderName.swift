import Upstream

/// The header names the proxy treats in a way of its own, recognised ignoring ASCII case.
///
/// Every header of every request and response is asked what it is: the name's length picks the
/// one or two candidates it could be, and only those are compared, byte by byte, with no copy and
/// no lowercased string. A name that is none of them (most are) costs a switch.
enum KnownHeaderName: Equatable {
    // Hop-by-hop (RFC 9110 §7.6.1): never cross the proxy.
    case connection, keepAlive, proxyConnection, proxyAuthenticate, proxyAuthorization, te, trailer, trailers, transferEncoding, upgrade
    // Requests: curl's to set, or dropped for a playlist (the proxy must read it whole and plain).
    case host, expect, acceptEncoding, range
    // Responses: what describes the origin's bytes, and what a record keeps.
    case contentLength, contentEncoding, contentRange, contentMD5, etag, acceptRanges
    case contentType, location, retryAfter, xHlschaosFault, accessControlAllowOrigin

    init?(_ name: String) {
        var name = name
        guard let known = name.withUTF8(Self.known(_:)) else { return nil }
        self = known
    }

    /// A name given as bytes (a `Connection` option, say).
    init?(bytes: UnsafeBufferPointer<UInt8>) {
        guard let known = Self.known(bytes) else { return nil }
        self = known
    }

    init?(bytes: UnsafeRawBufferPointer) {
        guard let known = Self.known(bytes.assumingMemoryBound(to: UInt8.self)) else { return nil }
        self = known
    }

    private static func known(_ bytes: UnsafeBufferPointer<UInt8>) -> KnownHeaderName? {
        func matches(_ candidate: StaticString) -> Bool {
            // Callers pick candidates of the name's length.
            let pattern = UnsafeBufferPointer(start: candidate.utf8Start, count: candidate.utf8CodeUnitCount)
            for index in 0..<bytes.count where asciiLowercased(bytes[index]) != pattern[index] { return false }
            return true
        }
        switch bytes.count {
        case 2: return matches("te") ? .te : nil
        case 4: return matches("host") ? .host : matches("etag") ? .etag : nil
        case 5: return matches("range") ? .range : nil
        case 6: return matches("expect") ? .expect : nil
        case 7: return matches("upgrade") ? .upgrade : matches("trailer") ? .trailer : nil
        case 8: return matches("location") ? .location : matches("trailers") ? .trailers : nil
        case 10: return matches("connection") ? .connection : matches("keep-alive") ? .keepAlive : nil
        case 11: return matches("retry-after") ? .retryAfter : matches("content-md5") ? .contentMD5 : nil
        case 12: return matches("content-type") ? .contentType : nil
        case 13: return matches("accept-ranges") ? .acceptRanges : matches("content-range") ? .contentRange : nil
        case 14: return matches("content-length") ? .contentLength : nil
        case 15: return matches("accept-encoding") ? .acceptEncoding : nil
        case 16:
            return matches("content-encoding") ? .contentEncoding
                : matches("x-hlschaos-fault") ? .xHlschaosFault : matches("proxy-connection") ? .proxyConnection : nil
        case 17: return matches("transfer-encoding") ? .transferEncoding : nil
        case 18: return matches("proxy-authenticate") ? .proxyAuthenticate : nil
        case 19: return matches("proxy-authorization") ? .proxyAuthorization : nil
        case 27: return matches("access-control-allow-origin") ? .accessControlAllowOrigin : nil
        default: return nil
        }
    }

    /// Describes one connection, not the message: stays on its side of the proxy.
    var isHopByHop: Bool {
        switch self {
        case .connection, .keepAlive, .proxyConnection, .proxyAuthenticate, .proxyAuthorization, .te, .trailer, .trailers,
             .transferEncoding, .upgrade: true
        default: false
        }
    }

    /// Describes the origin's bytes of a playlist the proxy rewrites: dropped from its response.
    var describesOriginBytes: Bool {
        switch self {
        case .contentLength, .contentEncoding, .contentRange, .etag, .contentMD5, .acceptRanges: true
        default: false
        }
    }

    /// The response headers a record keeps (what a request log or a HAR viewer shows), in the
    /// record's order, each with its name as a record spells it.
    static let recorded: [(known: KnownHeaderName, name: String)] = [
        (.contentType, "content-type"), (.contentLength, "content-length"), (.location, "location"), (.retryAfter, "retry-after"),
        (.xHlschaosFault, "x-hlschaos-fault"),
    ]

    /// Where `ResponseFields` notes the first field of this name as it is added: the recorded ones,
    /// and those the framing and CORS ask about on every response. Below 8, the size of its table.
    var fieldSlot: Int? {
        switch self {
        case .contentType: 0
        case .contentLength: 1
        case .location: 2
        case .retryAfter: 3
        case .xHlschaosFault: 4
        case .transferEncoding: 5
        case .connection: 6
        case .accessControlAllowOrigin: 7
        default: nil
        }
    }
}
