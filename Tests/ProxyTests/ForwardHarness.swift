import CertificateAuthority
import DemoOrigin
import Foundation
import NIOSSL
import Addressing
import Proxy
import TestSupport
import Upstream

/// The forward proxy as a device meets it: a demo origin served over HTTPS as `cdn.hlschaos.test`
/// (a name that exists only through the proxy's resolve override, with a certificate of its own
/// test CA that the proxy's libcurl is told to trust), a plain-HTTP demo origin, and the proxy in
/// forward mode with its local CA in a fresh data folder. Clients are real: curl, ffmpeg, Chromium.
final class ForwardHarness: Sendable {
    static let cdnName = "cdn.hlschaos.test"
    let proxy: ProxyHarness
    let httpsOrigin: DemoOriginServer
    let plainOrigin: DemoOriginServer
    let ca: LocalCA
    /// The HTTPS origin's own CA (what the proxy's libcurl trusts as `upstreamCAFile`).
    let originCAFile: String
    /// The proxy's data folder (its local CA) and the origin's CA, removed by `stop()`.
    let folder: TemporaryFolder

    var proxyPort: Int { proxy.port }
    /// The HTTPS origin's URL as the device knows it.
    var cdnURL: String { "https://\(Self.cdnName):\(httpsOrigin.port)" }
    /// The local CA's root, for clients told to trust it (`curl --cacert`).
    var rootFile: String { ca.certificatePath }

    static func start(
        rules: [String] = [], configure: (inout ProxyConfiguration) -> Void = { _ in }
    ) async throws -> ForwardHarness {
        let folder = try TemporaryFolder("forward")
        do {
            return try await start(in: folder, rules: rules, configure: configure)
        } catch {
            folder.remove()
            throw error
        }
    }

    /// Runs `body` with a started harness and stops it afterwards (its servers and its folder),
    /// also when `body` throws.
    static func with(
        rules: [String] = [], configure: (inout ProxyConfiguration) -> Void = { _ in }, _ body: (ForwardHarness) async throws -> Void
    ) async throws {
        let harness = try await start(rules: rules, configure: configure)
        try await withTeardown { await harness.stop() } run: { try await body(harness) }
    }

    private static func start(
        in folder: TemporaryFolder, rules: [String], configure: (inout ProxyConfiguration) -> Void
    ) async throws -> ForwardHarness {
        let ca = try LocalCA.loadOrCreate(directory: folder.path("ca"))
        // The origin's own CA: what a private CDN's certificate would chain to.
        let originCA = try LocalCA.loadOrCreate(directory: folder.path("origin-ca"))
        let originLeaf = try originCA.leaf(for: cdnName)
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try originLeaf.chainPEM.map { .certificate(try NIOSSLCertificate(bytes: Array($0.utf8), format: .pem)) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(originLeaf.privateKeyPEM.utf8), format: .pem)))
        tls.applicationProtocols = ["http/1.1"]
        let httpsOrigin = try await DemoOriginServer.start(origin: DemoOrigin(), tls: try NIOSSLContext(configuration: tls))
        let plainOrigin = try await DemoOriginServer.start(origin: DemoOrigin())
        let proxy = try await ProxyHarness.start(upstreamURL: nil, rules: rules, certificates: ca) { configuration in
            configuration.forward.enabled = true
            configuration.upstream.resolve = ["\(cdnName):\(httpsOrigin.port)": "127.0.0.1"]
            configuration.upstream.extraCAFile = originCA.certificatePath
            configuration.origins["plain"] = UpstreamLocation(absolute: plainOrigin.baseURL)
            configure(&configuration)
        }
        return ForwardHarness(
            proxy: proxy, httpsOrigin: httpsOrigin, plainOrigin: plainOrigin, ca: ca, originCAFile: originCA.certificatePath, folder: folder)
    }

    private init(
        proxy: ProxyHarness, httpsOrigin: DemoOriginServer, plainOrigin: DemoOriginServer, ca: LocalCA, originCAFile: String, folder: TemporaryFolder
    ) {
        self.originCAFile = originCAFile
        self.proxy = proxy
        self.httpsOrigin = httpsOrigin
        self.plainOrigin = plainOrigin
        self.ca = ca
        self.folder = folder
    }

    func stop() async {
        await proxy.stop()
        try? await httpsOrigin.shutdown()
        try? await plainOrigin.shutdown()
        folder.remove()
    }

    /// What curl got: its exit code, the status, the HTTP version it spoke and the body.
    struct CurlResult {
        var exitCode: Int32
        var status: Int
        var httpVersion: String
        var body: [UInt8]
        var stderr: String
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// `curl` through the proxy (its proxy setting), with the extra arguments given.
    func curl(_ url: String, _ arguments: [String] = []) async throws -> CurlResult {
        try await Self.curl(["--proxy", "http://127.0.0.1:\(proxyPort)"] + arguments + [url])
    }

    static func curl(_ arguments: [String]) async throws -> CurlResult {
        try await withTemporaryFolder("curl") { folder in try await curl(arguments, output: folder.path("body")) }
    }

    private static func curl(_ arguments: [String], output: String) async throws -> CurlResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sS", "--max-time", "60", "-o", output, "-w", "%{http_code} %{http_version}"] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let written = try await RawHTTP.run { out.fileHandleForReading.readAllRetryingInterrupts() }
        let errors = try await RawHTTP.run { err.fileHandleForReading.readAllRetryingInterrupts() }
        process.waitUntilExit()
        let fields = String(decoding: written, as: UTF8.self).split(separator: " ")
        return CurlResult(
            exitCode: process.terminationStatus, status: fields.first.flatMap { Int($0) } ?? 0,
            httpVersion: fields.count > 1 ? String(fields[1]) : "",
            body: Array(FileManager.default.contents(atPath: output) ?? Data()), stderr: String(decoding: errors, as: UTF8.self))
    }
}
