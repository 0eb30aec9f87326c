import Addressing

/// How requests on one client connection name what they want. Every way in ends in the same
/// `ProxyHandler` pipeline; only where the session and the upstream are read differs.
enum ClientWay: Sendable {
    /// The proxy's own listener: reverse paths (`/s/tv1/…`), and with `--forward` absolute-form
    /// requests (`GET http://host/…`) and `CONNECT`.
    case direct
    /// Requests inside an intercepted `CONNECT`: origin-form targets on `target`, in the session the
    /// `CONNECT` was allowed into. `scheme` is "https" when the proxy terminated TLS
    /// (`https://target/…`), "http" when the client spoke plain HTTP inside the tunnel (as
    /// `curl --proxytunnel` does for `http://` URLs).
    case intercepted(ConnectTarget, ForwardAccess.Identity, scheme: String)
}
