import Addressing
import CertificateAuthority
import DemoOrigin
import Foundation
import Logging
import NIOSSL
import Players
import Proxy
import RuleLoading
import Upstream

/// The proxy (and, for demo streams, the demo origin) a run plays through, on loopback ports of its
/// own, in this process: sessions are opened with their scenario directly, records read directly.
///
/// `--via forward`: the demo origin is served over HTTPS as `demoHost` (a name only the proxy's
/// resolve override knows) with a certificate of a throwaway origin CA the proxy's libcurl trusts;
/// the proxy runs in forward mode with a fresh local CA and intercepts that name. Players open the
/// origin's URL with the proxy as their HTTP proxy and the local CA's root as trusted. Sessions
/// come from the client address: `prepare(session:)` names 127.0.0.1 after the cell's session, so
/// the cells of one harness run one at a time (`concurrentCells`).
///
/// `--via https`: the proxy also listens with TLS (a leaf of a fresh local CA for localhost,
/// HTTP/2 and HTTP/1.1 by ALPN); players open `https://localhost:<port>/s/<session>/…` and trust
/// the CA's root. The demo origin stays plain HTTP behind the proxy.
public final class RunHarness: Sendable {
    public let proxy: ProxyServer
    /// "http://127.0.0.1:<port>", or "https://localhost:<https port>" with `--via https`: where
    /// session URLs start.
    public let proxyURL: String
    /// For a URL source: the path and query to put after the session prefix (reverse), or the
    /// origin's scheme and authority to put before a demo path (forward).
    public let entryPath: String
    public let route: RunRoute
    /// What players are told in forward and https mode: the local CA root to trust, and in
    /// forward mode the proxy to use.
    public let playerProxy: PlayerProxy?
    private let originBase: String?
    private let origin: DemoOriginServer?
    private let upstream: UpstreamClient
    private let serving: Task<Void, Never>
    /// The forward or https mode's CAs (removed at `stop`).
    private let dataDirectory: String?

    /// The name the demo origin has in forward mode.
    public static let demoHost = "demo.hlschaos.test"

    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    public static func start(source: StreamSource, rules: RuleBook, logger: Logger, via route: RunRoute = .reverse) async throws -> RunHarness {
        var configuration = ProxyConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        // Both CAs for forward mode; the local CA alone (its root for the players) for https.
        let authorities = route == .reverse ? nil : try CertificateSetup.make(route: route)
        if route == .forward { configuration.forward.enabled = true }
        if route == .https { configuration.https = .init(port: 0) }
        var origin: DemoOriginServer?
        let entryPath: String
        var originBase: String?
        switch source {
        case .demo:
            do {
                if let originCA = authorities?.originCA {
                    let server = try await DemoOriginServer.start(origin: DemoOrigin(), tls: try CertificateSetup.originTLS(originCA))
                    origin = server
                    let authority = "\(demoHost):\(server.port)"
                    configuration.forward.intercept = [demoHost]
                    configuration.upstream.resolve = [authority: "127.0.0.1"]
                    configuration.upstream.extraCAFile = originCA.certificatePath
                    originBase = "https://" + authority
                } else {
                    let server = try await DemoOriginServer.start(origin: DemoOrigin())
                    origin = server
                    configuration.defaultOrigin = UpstreamLocation(absolute: server.baseURL)
                }
            } catch {
                authorities?.remove()
                throw StartError(description: "the demo origin did not start: \(error)")
            }
            entryPath = source.demoPath ?? "/"
        case .url(let text):
            guard let location = UpstreamLocation(absolute: text), let host = URL(string: text)?.host else {
                authorities?.remove()
                throw StartError(description: "--url \(text): not an absolute http(s) URL")
            }
            if route == .forward {
                // The player opens the URL itself; the proxy intercepts its host.
                configuration.forward.intercept = [host]
                originBase = ""
                entryPath = text
            } else {
                configuration.defaultOrigin = UpstreamLocation(scheme: location.scheme, authority: location.authority, pathAndQuery: "/")
                entryPath = location.pathAndQuery
            }
        }
        let upstream: UpstreamClient
        do {
            upstream = try UpstreamClient(configuration: configuration.upstream)
        } catch {
            try? await origin?.shutdown()
            authorities?.remove()
            throw StartError(description: "libcurl could not start: \(error)")
        }
        let proxy: ProxyServer
        do {
            proxy = try await ProxyServer.bind(
                configuration: configuration, upstream: upstream, rules: rules, certificates: authorities?.localCA, logger: logger)
        } catch {
            await upstream.shutdown()
            try? await origin?.shutdown()
            authorities?.remove()
            throw StartError(description: "the proxy did not start: \(error)")
        }
        return RunHarness(
            proxy: proxy, origin: origin, upstream: upstream, entryPath: entryPath, route: route, authorities: authorities,
            originBase: originBase)
    }

    private init(
        proxy: ProxyServer, origin: DemoOriginServer?, upstream: UpstreamClient, entryPath: String, route: RunRoute,
        authorities: CertificateSetup?, originBase: String?
    ) {
        self.proxy = proxy
        self.origin = origin
        self.upstream = upstream
        self.entryPath = entryPath
        self.route = route
        self.originBase = originBase
        self.dataDirectory = authorities?.directory
        let plain = "http://127.0.0.1:\(proxy.port)"
        self.proxyURL = route == .https ? "https://localhost:\(proxy.httpsPort ?? 0)" : plain
        self.playerProxy = authorities.map { PlayerProxy(url: route == .forward ? plain : nil, caFile: $0.localCA.certificatePath) }
        self.serving = Task { await proxy.run() }
    }

    /// How many cells may play at once: any number through the proxy's session paths; one in
    /// forward mode, where a cell's session is the players' address (127.0.0.1) named after it.
    public var concurrentCells: Int? { route == .forward ? 1 : nil }

    /// Makes the proxy file what the next player sends under `session` (forward mode: the
    /// loopback address is named after it). Call after the session is opened.
    public func prepare(session: String) {
        if route == .forward { proxy.control.nameDevice(address: "127.0.0.1", session: session) }
    }

    /// Undoes `prepare(session:)`.
    public func finish(session: String) {
        if route == .forward { proxy.control.nameDevice(address: "127.0.0.1", session: nil) }
    }

    /// The URL a player opens for `session`, for the harness's own source or a demo path.
    /// Forward mode: the origin's own URL (the session comes from the player's address).
    public func sessionURL(_ session: String, path: String? = nil) -> String {
        if let originBase {
            return path.map { originBase + $0 } ?? (originBase.isEmpty ? entryPath : originBase + entryPath)
        }
        return proxyURL + ProxyControl.sessionPath(session) + (path ?? entryPath)
    }

    public func stop() async {
        proxy.shutdown()
        proxy.closeAllConnections()
        await serving.value
        await upstream.shutdown()
        try? await origin?.shutdown()
        if let dataDirectory { try? FileManager.default.removeItem(atPath: dataDirectory) }
    }
}

/// The throwaway CAs of a forward or https run, in a temp folder of its own: the proxy's local CA
/// (what players trust) and, in forward mode, the demo origin's CA (what the proxy's libcurl trusts).
private struct CertificateSetup {
    var directory: String
    var localCA: LocalCA
    /// Forward mode only: there the demo origin speaks HTTPS; with `--via https` it stays plain HTTP.
    var originCA: LocalCA?

    static func make(route: RunRoute) throws -> CertificateSetup {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlschaos-run-\(route.rawValue)-\(UUID().uuidString)").path
        do {
            return CertificateSetup(
                directory: directory, localCA: try LocalCA.loadOrCreate(directory: directory + "/ca"),
                originCA: route == .forward ? try LocalCA.loadOrCreate(directory: directory + "/origin-ca") : nil)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw RunHarness.StartError(description: "--via \(route.rawValue): cannot make the certificate authorities in \(directory): \(error)")
        }
    }

    /// The demo origin's TLS: a leaf for `RunHarness.demoHost` from the origin CA, HTTP/1.1.
    static func originTLS(_ originCA: LocalCA) throws -> NIOSSLContext {
        let leaf = try originCA.leaf(for: RunHarness.demoHost)
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try leaf.chainPEM.map { .certificate(try NIOSSLCertificate(bytes: Array($0.utf8), format: .pem)) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(leaf.privateKeyPEM.utf8), format: .pem)))
        tls.applicationProtocols = ["http/1.1"]
        return try NIOSSLContext(configuration: tls)
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
