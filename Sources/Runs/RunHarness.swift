import Addressing
import CertificateAuthority
import DemoOrigin
import Foundation
import Logging
import NIOSSL
import Players
import Proxy
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
public final class RunHarness: Sendable {
    public let proxy: ProxyServer
    /// "http://127.0.0.1:<port>"
    public let proxyURL: String
    /// For a URL source: the path and query to put after the session prefix (reverse), or the
    /// origin's scheme and authority to put before a demo path (forward).
    public let entryPath: String
    public let route: RunRoute
    /// What players are told in forward mode: the proxy and the local CA root to trust.
    public let playerProxy: PlayerProxy?
    private let originBase: String?
    private let origin: DemoOriginServer?
    private let upstream: UpstreamClient
    private let serving: Task<Void, Never>
    /// The forward mode's CAs (removed at `stop`).
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
        var forward: ForwardSetup?
        if route == .forward {
            forward = try ForwardSetup.make()
            configuration.forward.enabled = true
        }
        var origin: DemoOriginServer?
        let entryPath: String
        var originBase: String?
        switch source {
        case .demo:
            do {
                if let forward {
                    let server = try await DemoOriginServer.start(origin: DemoOrigin(), tls: try forward.originTLS())
                    origin = server
                    let authority = "\(demoHost):\(server.port)"
                    configuration.forward.intercept = [demoHost]
                    configuration.upstream.resolve = [authority: "127.0.0.1"]
                    configuration.upstream.extraCAFile = forward.originCA.certificatePath
                    originBase = "https://" + authority
                } else {
                    let server = try await DemoOriginServer.start(origin: DemoOrigin())
                    origin = server
                    configuration.defaultOrigin = UpstreamLocation(absolute: server.baseURL)
                }
            } catch {
                forward?.remove()
                throw StartError(description: "the demo origin did not start: \(error)")
            }
            entryPath = source.demoPath ?? "/"
        case .url(let text):
            guard let location = UpstreamLocation(absolute: text), let host = URL(string: text)?.host else {
                forward?.remove()
                throw StartError(description: "--url \(text): not an absolute http(s) URL")
            }
            if forward != nil {
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
            forward?.remove()
            throw StartError(description: "libcurl could not start: \(error)")
        }
        let proxy: ProxyServer
        do {
            proxy = try await ProxyServer.bind(
                configuration: configuration, upstream: upstream, rules: rules, certificates: forward?.localCA, logger: logger)
        } catch {
            await upstream.shutdown()
            try? await origin?.shutdown()
            forward?.remove()
            throw StartError(description: "the proxy did not start: \(error)")
        }
        return RunHarness(
            proxy: proxy, origin: origin, upstream: upstream, entryPath: entryPath, route: route, forward: forward, originBase: originBase)
    }

    private init(
        proxy: ProxyServer, origin: DemoOriginServer?, upstream: UpstreamClient, entryPath: String, route: RunRoute,
        forward: ForwardSetup?, originBase: String?
    ) {
        self.proxy = proxy
        self.origin = origin
        self.upstream = upstream
        self.entryPath = entryPath
        self.route = route
        self.originBase = originBase
        self.dataDirectory = forward?.directory
        self.proxyURL = "http://127.0.0.1:\(proxy.port)"
        self.playerProxy = forward.map { PlayerProxy(url: "http://127.0.0.1:\(proxy.port)", caFile: $0.localCA.certificatePath) }
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

/// The two throwaway CAs of a forward-mode run, in a temp folder of its own: the proxy's local CA
/// (what players trust) and the demo origin's CA (what the proxy's libcurl trusts).
private struct ForwardSetup {
    var directory: String
    var localCA: LocalCA
    var originCA: LocalCA

    static func make() throws -> ForwardSetup {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hlschaos-run-forward-\(UUID().uuidString)").path
        do {
            return ForwardSetup(
                directory: directory, localCA: try LocalCA.loadOrCreate(directory: directory + "/ca"),
                originCA: try LocalCA.loadOrCreate(directory: directory + "/origin-ca"))
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw RunHarness.StartError(description: "--via forward: cannot make the certificate authorities in \(directory): \(error)")
        }
    }

    /// The demo origin's TLS: a leaf for `RunHarness.demoHost` from the origin CA, HTTP/1.1.
    func originTLS() throws -> NIOSSLContext {
        let leaf = try originCA.leaf(for: RunHarness.demoHost)
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try leaf.chainPEM.map { .certificate(try NIOSSLCertificate(bytes: Array($0.utf8), format: .pem)) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(leaf.privateKeyPEM.utf8), format: .pem)))
        tls.applicationProtocols = ["http/1.1"]
        return try NIOSSLContext(configuration: tls)
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
