/// How a run's players reach the proxy (`hlschaos run --via`).
public enum RunRoute: String, Sendable, CaseIterable {
    /// Players open `http://127.0.0.1:<port>/s/<session>/…`, the proxy's own URLs.
    case reverse
    /// Players open the origin's own https URL with the proxy as their HTTP proxy, trusting its
    /// local CA, as a device with its proxy setting does; the proxy intercepts the origin's host.
    case forward
    /// Players open `https://localhost:<https port>/s/<session>/…` on the proxy's HTTPS listener
    /// (HTTP/2 or HTTP/1.1 by ALPN), trusting its local CA, as an app with an https:// proxy URL does.
    case https
}
