import CertificateAuthority
import Addressing
import Chaos
import Control
import DemoOrigin
import Foundation
import Proxy
import RuleLoading
import TestSupport
import Upstream

/// A real proxy in front of the demo origin, and the control API next to it, both on loopback ports
/// of their own, in this process. Always call `stop()`.
final class ControlHarness: Sendable {
    let proxy: ProxyServer
    let control: ControlServer
    let upstream: UpstreamClient
    let demo: DemoOriginServer
    let proxyTask: Task<Void, Never>
    let token: String?
    /// Where recordings go (`recordingsDirectory`); removed by `stop()`.
    let folder: TemporaryFolder

    /// The repository's `rules/` folder: its presets, with their descriptions.
    static let rulesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("rules").path

    var api: APIClient { APIClient(port: control.port, token: token) }
    var proxyPort: Int { proxy.port }

    static func start(
        token: String? = nil,
        heartbeat: Duration = .seconds(15),
        deviceHosts: [String] = ["localhost", "192.0.2.7"],
        ruleFiles: [String] = [],
        presetDirectory: String? = rulesDirectory,
        maxEventStreams: Int = 64,
        certificates: LocalCA? = nil,
        configure: (inout ProxyConfiguration) -> Void = { _ in }
    ) async throws -> ControlHarness {
        let folder = try TemporaryFolder("recordings")
        var configuration = ProxyConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.recordingsDirectory = folder.path
        let demo: DemoOriginServer, upstream: UpstreamClient, proxy: ProxyServer
        do {
            demo = try await DemoOriginServer.start(origin: DemoOrigin())
            configuration.defaultOrigin = UpstreamLocation(absolute: demo.baseURL)
            configure(&configuration)
            let rules = try RuleBook(ruleFiles: ruleFiles, presetDirectory: presetDirectory)
            upstream = try UpstreamClient(configuration: configuration.upstream)
            do {
                proxy = try await ProxyServer.bind(configuration: configuration, upstream: upstream, rules: rules, certificates: certificates)
            } catch {
                await upstream.shutdown()
                try? await demo.shutdown()
                throw error
            }
        } catch {
            folder.remove()
            throw error
        }
        let proxyTask = Task { await proxy.run() }
        var settings = ControlConfiguration(host: "127.0.0.1", port: 0, token: token, deviceHosts: deviceHosts)
        settings.heartbeatInterval = heartbeat
        settings.maxEventStreams = maxEventStreams
        settings.version = "test"
        let control = try await ControlServer.start(proxy: proxy, configuration: settings)
        return ControlHarness(proxy: proxy, control: control, upstream: upstream, demo: demo, proxyTask: proxyTask, token: token, folder: folder)
    }

    private init(
        proxy: ProxyServer, control: ControlServer, upstream: UpstreamClient, demo: DemoOriginServer,
        proxyTask: Task<Void, Never>, token: String?, folder: TemporaryFolder
    ) {
        self.proxy = proxy
        self.control = control
        self.upstream = upstream
        self.demo = demo
        self.proxyTask = proxyTask
        self.token = token
        self.folder = folder
    }

    /// Runs `body` with a started harness and stops it afterwards, also when `body` throws.
    static func with(
        token: String? = nil,
        heartbeat: Duration = .seconds(15),
        ruleFiles: [String] = [],
        presetDirectory: String? = rulesDirectory,
        maxEventStreams: Int = 64,
        _ body: (ControlHarness) async throws -> Void
    ) async throws {
        let harness = try await start(
            token: token, heartbeat: heartbeat, ruleFiles: ruleFiles, presetDirectory: presetDirectory, maxEventStreams: maxEventStreams)
        try await harness.use(body)
    }

    /// Runs `body` with this started harness and stops it afterwards, also when `body` throws.
    func use(_ body: (ControlHarness) async throws -> Void) async throws {
        try await withTeardown { await stop() } run: { try await body(self) }
    }

    func stop() async {
        await control.shutdown()
        proxy.shutdown()
        await proxyTask.value
        await upstream.shutdown()
        try? await demo.shutdown()
        folder.remove()
    }

    /// One request to the proxy, as a device makes it.
    func play(_ target: String) async throws -> RawHTTPConnection.Response {
        try await RawHTTP.get(port: proxy.port, target)
    }

    /// The URIs of a playlist the proxy served (its rewritten ones, `/s/<id>/~media.v0/…`).
    func uris(of target: String) async throws -> [String] {
        try await play(target).text.split(separator: "\n").map(String.init).filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }
}

/// A small valid scenario: every request of `kind` answers `status`.
func statusScenario(name: String = "api-status", kind: String = "master", status: Int = 503) -> String {
    """
    {"name": "\(name)", "description": "every \(kind) answers \(status)",
     "rules": [{"id": "all-\(kind)", "match": {"kind": "\(kind)"}, "action": {"status": \(status)}}]}
    """
}
