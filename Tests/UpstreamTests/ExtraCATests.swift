import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
@testable import Upstream

/// HTTPS origins whose certificates come from test CAs: reached with `extraCAFile`, refused
/// without it, and the system's certificates still trusted beside it.
@Suite struct ExtraCATests {
    static let page = Array("#EXTM3U\n#EXT-X-VERSION:3\n".utf8)

    /// A client for `https://<name>:<port>/` mapped to the loopback origin.
    private func client(_ origin: TLSTestOrigin, names: [String], extraCAFile: String?, systemCABundle: String? = CABundle.defaultSystemBundlePath()) throws -> UpstreamClient {
        var resolve: [String: String] = [:]
        for name in names { resolve["\(name):\(origin.port)"] = "127.0.0.1" }
        return try UpstreamClient(configuration: UpstreamConfiguration(resolve: resolve, extraCAFile: extraCAFile), systemCABundle: systemCABundle)
    }

    @Test(.timeLimit(.minutes(2)))
    func anOriginOfTheExtraCAVerifiesAndIsRefusedWithoutIt() async throws {
        let ca = try TestCA(name: "private")
        let origin = try await TLSTestOrigin.start(ca: ca, names: ["media.hlschaos.test"], files: ["index.m3u8": Self.page])
        defer { origin.stop() }
        let url = "https://media.hlschaos.test:\(origin.port)/index.m3u8"

        let trusting = try client(origin, names: ["media.hlschaos.test"], extraCAFile: ca.certificatePath)
        let response = try await trusting.fetch(UpstreamRequest(url: url))
        #expect(response.status == 200)
        #expect(try await response.body.collect(upTo: 1 << 20) == Self.page)
        await trusting.shutdown()

        let plain = try client(origin, names: ["media.hlschaos.test"], extraCAFile: nil)
        let error = await upstreamError { () async throws(UpstreamError) in try await plain.fetch(UpstreamRequest(url: url)) }
        await plain.shutdown()
        guard case .tls(url, _)? = error else {
            Issue.record("expected .tls, got \(String(describing: error))")
            return
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func theHostNameIsStillVerified() async throws {
        let ca = try TestCA(name: "names")
        let origin = try await TLSTestOrigin.start(ca: ca, names: ["media.hlschaos.test"], files: ["index.m3u8": Self.page])
        defer { origin.stop() }
        let client = try client(origin, names: ["other.hlschaos.test"], extraCAFile: ca.certificatePath)
        let url = "https://other.hlschaos.test:\(origin.port)/index.m3u8"
        let error = await upstreamError { () async throws(UpstreamError) in try await client.fetch(UpstreamRequest(url: url)) }
        await client.shutdown()
        guard case .tls(url, let message)? = error else {
            Issue.record("expected .tls, got \(String(describing: error))")
            return
        }
        #expect(message.contains("other.hlschaos.test"), "\(message)")
    }

    /// The system bundle is added to, not replaced: here a stand-in "system" CA signs a
    /// public-looking name, the extra CA a private one, and one client verifies both.
    @Test(.timeLimit(.minutes(2)))
    func theSystemCertificatesAreStillTrustedBesideTheExtraOnes() async throws {
        let system = try TestCA(name: "system")
        let extra = try TestCA(name: "extra")
        let publicOrigin = try await TLSTestOrigin.start(ca: system, names: ["cdn.example.com"], files: ["a.m3u8": Self.page])
        defer { publicOrigin.stop() }
        let privateOrigin = try await TLSTestOrigin.start(ca: extra, names: ["media.hlschaos.test"], files: ["b.m3u8": Self.page])
        defer { privateOrigin.stop() }
        let client = try UpstreamClient(
            configuration: UpstreamConfiguration(
                resolve: ["cdn.example.com:\(publicOrigin.port)": "127.0.0.1", "media.hlschaos.test:\(privateOrigin.port)": "127.0.0.1"],
                extraCAFile: extra.certificatePath),
            systemCABundle: system.certificatePath)
        for url in ["https://cdn.example.com:\(publicOrigin.port)/a.m3u8", "https://media.hlschaos.test:\(privateOrigin.port)/b.m3u8"] {
            let response = try await client.fetch(UpstreamRequest(url: url))
            #expect(response.status == 200, "\(url)")
            #expect(try await response.body.collect(upTo: 1 << 20) == Self.page, "\(url)")
        }
        await client.shutdown()
    }

    @Test func theBundleIsTheRealSystemBundleFollowedByTheExtraFile() throws {
        let systemPath = try #require(CABundle.defaultSystemBundlePath(), "no system CA bundle on this machine")
        let ca = try TestCA(name: "bundle")
        let folder = try checkBundle(extraCAFile: ca.certificatePath, systemPath: systemPath)
        #expect(!FileManager.default.fileExists(atPath: folder), "the temporary folder outlived the bundle")
    }

    /// The client's shutdown removes the bundle's folder, not only its being freed: a process that
    /// exits while it still holds its client (as `hlschaos run` and the tests do) leaves nothing.
    @Test func shutdownRemovesTheBundlesFolderWhileTheClientIsStillHeld() async throws {
        let ca = try TestCA(name: "shutdown")
        let client = try UpstreamClient(configuration: UpstreamConfiguration(resolve: [:], extraCAFile: ca.certificatePath))
        let bundle = try #require(client.loop.sharedOptions.caBundle)
        let folder = (bundle.path as NSString).deletingLastPathComponent
        #expect(FileManager.default.fileExists(atPath: bundle.path))
        await client.shutdown()
        #expect(!FileManager.default.fileExists(atPath: folder), "\(folder) outlived the client's shutdown")
        withExtendedLifetime(client) {}
    }

    /// Checks the combined file; returns its folder, once the bundle is gone.
    private func checkBundle(extraCAFile: String, systemPath: String) throws -> String {
        let bundle = try CABundle(extraCAFile: extraCAFile, systemBundlePath: systemPath)
        let system = try Data(contentsOf: URL(fileURLWithPath: systemPath))
        let extra = try Data(contentsOf: URL(fileURLWithPath: extraCAFile))
        let combined = try Data(contentsOf: URL(fileURLWithPath: bundle.path))
        #expect(combined.starts(with: system))
        #expect(combined.suffix(extra.count) == extra)
        #expect(combined.count <= system.count + 1 + extra.count)
        #expect(bundle.systemBundlePath == systemPath)
        return (bundle.path as NSString).deletingLastPathComponent
    }

    @Test func badExtraCAFilesAreRefusedAtInitNamingTheFile() throws {
        try withTemporaryFolder("upstream-badca") { scratch in
            let folder = scratch.path
            let ca = try TestCA(name: "bad")
            let certificate = try String(contentsOfFile: ca.certificatePath, encoding: .utf8)
            let key = try String(contentsOfFile: ca.folder + "/ca.key", encoding: .utf8)
            let truncated = String(certificate.dropLast(120)) + "\n-----END CERTIFICATE-----\n"
            let files: [(name: String, contents: String?, problem: String)] = [
                ("missing.pem", nil, "does not exist"),
                ("text.pem", "not a certificate\n", "holds no PEM certificate"),
                ("with-key.pem", certificate + key, "holds a PRIVATE KEY block"),
                ("truncated.pem", truncated, "has a damaged certificate"),
                ("unterminated.pem", String(certificate.dropLast(30)), "has no -----END CERTIFICATE-----"),
            ]
            for file in files {
                let path = folder + "/" + file.name
                if let contents = file.contents { try contents.write(toFile: path, atomically: true, encoding: .utf8) }
                #expect(setupMessage(extraCAFile: path)?.contains("the extra CA file \(path) \(file.problem)") == true,
                        "\(file.name): \(setupMessage(extraCAFile: path) ?? "accepted")")
            }
            #expect(setupMessage(extraCAFile: folder)?.contains("the extra CA file \(folder) is a folder") == true)
            if getuid() != 0 {  // root reads any file
                let locked = folder + "/locked.pem"
                try certificate.write(toFile: locked, atomically: true, encoding: .utf8)
                chmod(locked, 0)
                #expect(setupMessage(extraCAFile: locked)?.contains("the extra CA file \(locked) is not readable") == true)
            }
            #expect(setupMessage(extraCAFile: ca.certificatePath) == nil)
        }
    }

    private func setupMessage(extraCAFile: String) -> String? {
        do {
            _ = try UpstreamClient(configuration: UpstreamConfiguration(extraCAFile: extraCAFile))
            return nil
        } catch {
            guard case .setup(let message) = error else { return "not .setup: \(error)" }
            return message
        }
    }
}
