import CertificateAuthority
import Foundation
import Testing
import TestSupport

/// A real TLS handshake with a leaf: OpenSSL's test server presents it, curl checks it against
/// the root as a device that installed the root would, and refuses it without the root.
@Suite(.serialized) struct TLSHandshakeTests {
    /// `openssl s_server -www` on a loopback port with the leaf's chain and key; stopped by `body`'s end.
    private func withServer(
        _ leaf: IssuedLeaf, folder: TemporaryFolder, _ body: (Int) async throws -> Void
    ) async throws {
        let chain = try folder.file("chain.pem", leaf.chainPEM.joined())
        let key = try folder.file("leaf-key.pem", leaf.privateKeyPEM)
        let log = try folder.file("s_server.log", "")
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["openssl", "s_server", "-accept", "127.0.0.1:0", "-cert", chain, "-key", key, "-www"]
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        server.standardOutput = output
        server.standardError = output
        server.standardInput = FileHandle.nullDevice
        try server.run()
        try output.close()
        defer {
            // SIGKILL: the test process blocks SIGTERM, and its children inherit the mask.
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        // "ACCEPT 127.0.0.1:PORT" once it listens.
        var port: Int?
        _ = await eventually {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            port = text.firstMatch(of: /ACCEPT [^\n]*:(\d+)\n/).flatMap { Int($0.1) }
            return port != nil || !server.isRunning
        }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        try await body(try #require(port, "s_server did not start: \(text)"))
    }

    @Test func curlTrustsALeafForAHostNameWithTheRootAndRefusesItWithout() async throws {
        try await withTemporaryFolder("ca") { folder in
            let ca = try LocalCA.loadOrCreate(directory: folder.path + "/ca")
            let leaf = try ca.leaf(for: "media.hlschaos.test")
            try await withServer(leaf, folder: folder) { port in
                let url = "https://media.hlschaos.test:\(port)/"
                let resolve = "media.hlschaos.test:\(port):127.0.0.1"
                let trusted = try await ToolRun.run("curl", ["-sS", "--cacert", ca.certificatePath, "--resolve", resolve, url])
                #expect(trusted.status == 0, "\(trusted.stderr)")
                #expect(trusted.stdout.contains("s_server"))

                let untrusted = try await ToolRun.run("curl", ["-sS", "--resolve", resolve, url])
                #expect(untrusted.status == 60, "\(untrusted.stderr)")  // CURLE_PEER_FAILED_VERIFICATION

                let other = try LocalCA.loadOrCreate(directory: folder.path + "/other")
                let wrongRoot = try await ToolRun.run("curl", ["-sS", "--cacert", other.certificatePath, "--resolve", resolve, url])
                #expect(wrongRoot.status == 60, "\(wrongRoot.stderr)")
            }
        }
    }

    @Test func curlTrustsALeafForAnAddress() async throws {
        try await withTemporaryFolder("ca") { folder in
            let ca = try LocalCA.loadOrCreate(directory: folder.path + "/ca")
            try await withServer(try ca.leaf(for: "127.0.0.1"), folder: folder) { port in
                let trusted = try await ToolRun.run("curl", ["-sS", "--cacert", ca.certificatePath, "https://127.0.0.1:\(port)/"])
                #expect(trusted.status == 0, "\(trusted.stderr)")
                #expect(trusted.stdout.contains("s_server"))
            }
        }
    }
}
