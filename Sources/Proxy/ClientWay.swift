import Addressing

/// How requests on one client connection name what they want. Every way in ends in the same
/// `ProxyHandler` pipeline; only where the session and the upstream are read differs.
enum ClientWay: Sendable {
    /// The proxy's own listener: reverse paths (`/s/tv1/…`), and with `--forward` absolute-form
    /// requests (`GET http://host/…`) and `CONNECT`.
    case direct
    /// Requests inside a `CONNECT` whose TLS the proxy terminated: origin-form targets on `target`
    /// (`https://target/…`), in the session the `CONNECT` was allowed into.
    case intercepted(ConnectTarget, ForwardAccess.Identity)
}
