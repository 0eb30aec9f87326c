import NIOCore

/// One request to an origin. Headers are forwarded as given (the caller has already removed
/// hop-by-hop headers); Host, Connection, Transfer-Encoding, Content-Length and other headers
/// about the client's connection or a request body are dropped defensively. curl adds neither
/// Accept nor Expect; User-Agent falls back to the configured one when absent.
public struct UpstreamRequest: Sendable {
    public enum Method: String, Sendable {
        case get = "GET"
        case head = "HEAD"
    }

    public var url: String
    public var method: Method
    public var headers: [(name: String, value: String)]
    /// Follow 3xx responses (playlists); the response's `effectiveURL` is then the final URL.
    /// When false a 3xx is returned to the caller as is.
    public var followRedirects: Bool
    /// Offer Accept-Encoding and let curl decode the body (playlists). The returned headers then
    /// carry neither Content-Encoding nor Content-Length, since they describe the encoded body.
    public var decodeContent: Bool
    /// Overrides `UpstreamConfiguration.totalTimeout` for this request.
    public var totalTimeout: Duration?
    /// Overrides `UpstreamConfiguration.firstByteTimeout` for this request (a blocking playlist
    /// reload is answered only when the part it asks for exists).
    public var firstByteTimeout: Duration?
    /// Refuse to connect to what `UpstreamConfiguration.addressGuard` forbids (forward-proxy
    /// fetches of URLs that devices ask for): fails with `.refusedAddress`, before any packet is sent.
    public var guardAddresses: Bool
    /// The body this request most likely returns (the origin's previous answer for a playlist).
    /// While the response's bytes equal it they are compared where curl delivers them instead of
    /// copied, and a body equal to it is handed over as this very buffer; at the first difference
    /// the bytes matched so far are copied into the chunk the rest joins, and a body that ends early
    /// while it matched is handed over as a slice of it.
    public var expectedBody: ByteBuffer?

    public init(
        url: String,
        method: Method = .get,
        headers: [(name: String, value: String)] = [],
        followRedirects: Bool = false,
        decodeContent: Bool = false,
        totalTimeout: Duration? = nil,
        firstByteTimeout: Duration? = nil,
        guardAddresses: Bool = false,
        expectedBody: ByteBuffer? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.followRedirects = followRedirects
        self.decodeContent = decodeContent
        self.totalTimeout = totalTimeout
        self.firstByteTimeout = firstByteTimeout
        self.guardAddresses = guardAddresses
        self.expectedBody = expectedBody
    }
}
