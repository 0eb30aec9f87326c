/// Settings shared by every request of one `UpstreamClient`.
public struct UpstreamConfiguration: Sendable {
    /// DNS resolution plus TCP (and TLS) connect.
    public var connectTimeout: Duration
    /// From the moment the request is sent until the response head has arrived.
    public var firstByteTimeout: Duration
    /// Whole transfer, body included; nil means none (segments can be long). Requests may override it.
    public var totalTimeout: Duration?
    /// Origin connections open at once to one host; transfers beyond it wait in curl for one. A
    /// slow client (or a session's link) keeps its transfer, and so its connection, for as long as
    /// its body takes: this bounds how many such bodies one origin host serves at once.
    public var maxConnectionsPerHost: Int
    /// A transfer is paused while more than this many body bytes wait for the consumer.
    public var bufferHighWatermark: Int
    /// Sent as User-Agent when the request carries none.
    public var userAgentFallback: String
    public var verifyTLS: Bool
    /// "host:port" → address (IPv4, or IPv6 without brackets), applied to every transfer like
    /// curl's `--resolve`: pins a CDN edge, or gives a made-up name to a test origin. The URL keeps
    /// the name, so TLS still verifies it. Checked at client init (`validateResolve`).
    public var resolve: [String: String]
    /// PEM certificates trusted in addition to the system's, for private origins and test CAs.
    public var extraCAFile: String?
    /// What transfers with `UpstreamRequest.guardAddresses` may not connect to.
    public var addressGuard: AddressGuard

    public init(
        connectTimeout: Duration = .seconds(5),
        firstByteTimeout: Duration = .seconds(10),
        totalTimeout: Duration? = nil,
        maxConnectionsPerHost: Int = 256,
        bufferHighWatermark: Int = 512 * 1024,
        userAgentFallback: String = "hlschaos",
        verifyTLS: Bool = true,
        resolve: [String: String] = [:],
        extraCAFile: String? = nil,
        addressGuard: AddressGuard = AddressGuard()
    ) {
        self.connectTimeout = connectTimeout
        self.firstByteTimeout = firstByteTimeout
        self.totalTimeout = totalTimeout
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.bufferHighWatermark = bufferHighWatermark
        self.userAgentFallback = userAgentFallback
        self.verifyTLS = verifyTLS
        self.resolve = resolve
        self.extraCAFile = extraCAFile
        self.addressGuard = addressGuard
    }
}

extension Duration {
    /// Whole milliseconds, rounded up so that a tiny positive duration never becomes "no timeout" (0).
    var curlMilliseconds: Int {
        let (seconds, attoseconds) = components
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(clamping: max(millis, 1))
    }

    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        return whole &+ UInt64(attoseconds / 1_000_000_000)
    }

    /// "5 s", "250 ms": for error messages.
    var shortDescription: String {
        let millis = curlMilliseconds
        if millis % 1000 == 0 { return "\(millis / 1000) s" }
        return "\(millis) ms"
    }
}
