import Addressing
import DemoOrigin
import Foundation
import Logging
import Proxy
import Upstream

/// The proxy (and, for demo streams, the demo origin) a run plays through, on loopback ports of its
/// own, in this process: sessions are opened with their scenario directly, records read directly.
public final class RunHarness: Sendable {
    public let proxy: ProxyServer
    /// "http://127.0.0.1:<port>"
    public let proxyURL: String
    /// For a URL source: the path and query to put after the session prefix.
    public let entryPath: String
    private let origin: DemoOriginServer?
    private let upstream: UpstreamClient
    private let serving: Task<Void, Never>

    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    public static func start(source: StreamSource, rules: RuleBook, logger: Logger) async throws -> RunHarness {
        var configuration = ProxyConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        var origin: DemoOriginServer?
        let entryPath: String
        switch source {
        case .demo:
            do {
                let server = try await DemoOriginServer.start(origin: DemoOrigin())
                origin = server
                configuration.defaultOrigin = UpstreamLocation(absolute: server.baseURL)
            } catch {
                throw StartError(description: "the demo origin did not start: \(error)")
            }
            entryPath = source.demoPath ?? "/"
        case .url(let text):
            guard let location = UpstreamLocation(absolute: text) else {
                throw StartError(description: "--url \(text): not an absolute http(s) URL")
            }
            configuration.defaultOrigin = UpstreamLocation(scheme: location.scheme, authority: location.authority, pathAndQuery: "/")
            entryPath = location.pathAndQuery
        }
        let upstream: UpstreamClient
        do {
            upstream = try UpstreamClient(configuration: configuration.upstream)
        } catch {
            try? await origin?.shutdown()
            throw StartError(description: "libcurl could not start: \(error)")
        }
        let proxy: ProxyServer
        do {
            proxy = try await ProxyServer.bind(configuration: configuration, upstream: upstream, rules: rules, logger: logger)
        } catch {
            await upstream.shutdown()
            try? await origin?.shutdown()
            throw StartError(description: "the proxy did not start: \(error)")
        }
        return RunHarness(proxy: proxy, origin: origin, upstream: upstream, entryPath: entryPath)
    }

    private init(proxy: ProxyServer, origin: DemoOriginServer?, upstream: UpstreamClient, entryPath: String) {
        self.proxy = proxy
        self.origin = origin
        self.upstream = upstream
        self.entryPath = entryPath
        self.proxyURL = "http://127.0.0.1:\(proxy.port)"
        self.serving = Task { await proxy.run() }
    }

    /// The URL a player opens for `session`, for the harness's own source or a demo path.
    public func sessionURL(_ session: String, path: String? = nil) -> String {
        proxyURL + ProxyControl.sessionPath(session) + (path ?? entryPath)
    }

    public func stop() async {
        proxy.shutdown()
        proxy.closeAllConnections()
        await serving.value
        await upstream.shutdown()
        try? await origin?.shutdown()
    }
}
