import Addressing
import CertificateAuthority
import Chaos
import DemoOrigin
import Foundation
import Proxy
import RuleLoading
import TestSupport
import Upstream

/// A running proxy (and optionally the demo origin) for one test: start it with `with(upstreamURL:…)`,
/// which stops it also when the test throws.
final class ProxyHarness: Sendable {
    let server: ProxyServer
    let upstream: UpstreamClient
    let runTask: Task<Void, Never>
    let demo: DemoOriginServer?

    var port: Int { server.port }

    static func start(
        upstreamURL: String?,
        demo: DemoOriginServer? = nil,
        rules: [String] = [],
        presets: String? = nil,
        clock: any ChaosClock = SystemChaosClock(),
        certificates: LocalCA? = nil,
        configure: (inout ProxyConfiguration) -> Void = { _ in }
    ) async throws -> ProxyHarness {
        var configuration = ProxyConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.defaultOrigin = upstreamURL.flatMap(UpstreamLocation.init(absolute:))
        configure(&configuration)
        let book = try ruleBook(rules, presetDirectory: presets)
        let upstream = try UpstreamClient(configuration: configuration.upstream)
        let server = try await ProxyServer.bind(
            configuration: configuration, upstream: upstream, rules: book, certificates: certificates, clock: clock)
        let runTask = Task { await server.run() }
        return ProxyHarness(server: server, upstream: upstream, runTask: runTask, demo: demo)
    }

    /// Runs `body` with a started proxy (as `start`) and stops it afterwards, also when `body` throws.
    static func with<Result>(
        upstreamURL: String?,
        demo: DemoOriginServer? = nil,
        rules: [String] = [],
        presets: String? = nil,
        clock: any ChaosClock = SystemChaosClock(),
        certificates: LocalCA? = nil,
        configure: (inout ProxyConfiguration) -> Void = { _ in },
        isolation: isolated (any Actor)? = #isolation,
        _ body: (ProxyHarness) async throws -> Result
    ) async throws -> Result {
        try await withStarted(isolation: isolation, {
            try await start(
                upstreamURL: upstreamURL, demo: demo, rules: rules, presets: presets, clock: clock, certificates: certificates, configure: configure)
        }, stop: { await $0.stop() }, run: body)
    }

    /// Runs `body` with the proxy in front of a fresh demo origin (and the origin's model), and stops
    /// both whether or not `body` throws.
    static func withDemo<Result>(
        clock: @escaping @Sendable () -> Date = Date.init,
        rules: [String] = [],
        presets: String? = nil,
        configure: (inout ProxyConfiguration) -> Void = { _ in },
        isolation: isolated (any Actor)? = #isolation,
        _ body: (ProxyHarness, DemoOrigin) async throws -> Result
    ) async throws -> Result {
        let origin = try DemoOrigin(clock: clock)
        return try await withStarted(
            isolation: isolation, { try await DemoOriginServer.start(origin: origin) }, stop: { try? await $0.shutdown() }
        ) { demo in
            try await with(upstreamURL: demo.baseURL, demo: demo, rules: rules, presets: presets, configure: configure, isolation: isolation) {
                try await body($0, origin)
            }
        }
    }

    private init(server: ProxyServer, upstream: UpstreamClient, runTask: Task<Void, Never>, demo: DemoOriginServer?) {
        self.server = server
        self.upstream = upstream
        self.runTask = runTask
        self.demo = demo
    }

    /// Stops the proxy (and its demo origin); a second call does nothing more.
    func stop() async {
        server.shutdown()
        await runTask.value
        await upstream.shutdown()
        try? await demo?.shutdown()
    }

    func status(_ target: String) async -> Int {
        (try? await get(target).status) ?? -1
    }

    func get(_ target: String, method: String = "GET", headers: [(String, String)] = [], readTimeout: Double = 30)
        async throws -> RawHTTPConnection.Response
    {
        try await RawHTTP.get(port: port, target, method: method, headers: headers, readTimeout: readTimeout)
    }
}

/// A rule book of `rules` (JSON texts), read from files as `--rules` reads them; the files are
/// removed once read (a rule book reads its files when made, and again only when told to reload).
func ruleBook(_ rules: [String], presetDirectory: String? = nil) throws -> RuleBook {
    try withTemporaryFolder("rules") { folder in
        let files = try rules.enumerated().map { try folder.file("rules-\($0.offset).json", $0.element) }
        return try RuleBook(ruleFiles: files, presetDirectory: presetDirectory)
    }
}

/// A rule clock tests move by hand.
final class ManualChaosClock: ChaosClock, @unchecked Sendable {
    private let lock = NSLock()
    private var instant: Duration = .seconds(1000)
    func now() -> Duration { lock.withLock { instant } }
    func advance(_ duration: Duration) { lock.withLock { instant += duration } }
}
