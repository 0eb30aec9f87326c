import Foundation

/// How the control API listens and what it tells clients. Validated by `ControlServer.start`.
public struct ControlConfiguration: Sendable, Equatable {
    public static let defaultListen = "127.0.0.1:8081"

    /// Address the control API listens on; loopback by default. Anything beyond loopback needs a token.
    public var host: String = "127.0.0.1"
    public var port: Int = 8081
    /// When set, every call must carry `Authorization: Bearer <token>`.
    public var token: String?
    /// How devices reach the proxy ("localhost", "192.168.1.20", "[fd00::1]"): a session's device URLs
    /// are `http://<host>:<proxy port>/s/<id>/` for each. The CLI passes localhost and every non-loopback
    /// address of the machine when the proxy listens on all interfaces.
    public var deviceHosts: [String] = ["localhost"]
    /// Largest request body accepted (a scenario); larger ones get 413.
    public var maxBodyBytes: Int = 1 << 20
    /// A comment line is sent on every live event stream this often, so proxies and clients keep it open.
    public var heartbeatInterval: Duration = .seconds(15)
    /// Live event streams open at once; more get 503.
    public var maxEventStreams: Int = 64
    /// Connections to the control API open at once; more wait to be accepted.
    public var maxConnections: Int = 256
    /// An idle keep-alive connection to the control API is closed after this.
    public var idleTimeout: Duration = .seconds(75)
    /// hlschaos's version, for the HAR's `creator.version` and the OpenAPI document.
    public var version: String = "dev"

    public init(host: String = "127.0.0.1", port: Int = 8081, token: String? = nil, deviceHosts: [String] = ["localhost"]) {
        self.host = host
        self.port = port
        self.token = token
        self.deviceHosts = deviceHosts
    }

    /// `HOST:PORT` as `--control` takes it ("127.0.0.1:8081", "0.0.0.0:9000", "[::1]:8081", "localhost:8081").
    /// Fails with the reason when it is not one.
    public static func parseListen(_ text: String) -> Result<(host: String, port: Int), ListenError> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let host: Substring
        let portText: Substring
        if trimmed.hasPrefix("[") {
            guard let close = trimmed.firstIndex(of: "]"), trimmed[trimmed.index(after: close)...].hasPrefix(":") else {
                return .failure(ListenError(text: text, reason: "an IPv6 address goes in brackets: [::1]:8081"))
            }
            host = trimmed[trimmed.index(after: trimmed.startIndex)..<close]
            portText = trimmed[trimmed.index(close, offsetBy: 2)...]
        } else {
            guard let colon = trimmed.lastIndex(of: ":") else {
                return .failure(ListenError(text: text, reason: "expected HOST:PORT, for example 127.0.0.1:8081"))
            }
            host = trimmed[..<colon]
            portText = trimmed[trimmed.index(after: colon)...]
            if host.contains(":") {
                return .failure(ListenError(text: text, reason: "an IPv6 address goes in brackets: [::1]:8081"))
            }
        }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" }) else {
            return .failure(ListenError(text: text, reason: "expected HOST:PORT, for example 127.0.0.1:8081"))
        }
        guard let port = Int(portText), (0...65535).contains(port) else {
            return .failure(ListenError(text: text, reason: "the port must be a number from 0 to 65535"))
        }
        return .success((String(host), port))
    }

    public struct ListenError: Error, Sendable, Equatable, CustomStringConvertible {
        public var text: String
        public var reason: String
        public var description: String { "\"\(text)\" is not an address to listen on: \(reason)" }
    }

    /// Whether `host` is reachable from this machine only (127.0.0.0/8, ::1, localhost).
    public static func isLoopback(_ host: String) -> Bool {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// The listening address as a URL host ("127.0.0.1", "[::1]").
    public var urlHost: String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    /// Why the control API must not start with this configuration, or nil.
    public var refusal: String? {
        if let token, token.isEmpty || token.contains(where: { $0.isWhitespace || $0.isNewline }) {
            return "the control API token must be non-empty and have no spaces or line breaks"
        }
        guard token == nil, !Self.isLoopback(host) else { return nil }
        return """
            the control API would listen on \(urlHost):\(port) without a token, so anyone who can reach this \
            machine could change the faults every device gets: give --control-token TOKEN (or the environment \
            variable HLSCHAOS_CONTROL_TOKEN, or "controlToken" in the config file), or listen on loopback only \
            with --control 127.0.0.1:\(port)
            """
    }
}
