import Foundation
import Testing
import TestSupport

/// `hlschaos ca` as a user runs it: the fingerprint it prints is the one OpenSSL computes from the
/// file it names; the exports are that root; `rotate` makes another; a key others can read stops it.
@Suite struct CACommandTests {
    /// `openssl x509 -noout -fingerprint -sha256` of a certificate file: "AB:CD:…".
    static func opensslFingerprint(_ path: String, der: Bool = false) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "x509", "-noout", "-fingerprint", "-sha256", "-in", path] + (der ? ["-inform", "der"] : [])
        let out = OutputCollector()
        process.standardOutput = out.pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        await out.waitForEnd()
        return out.text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "sha256 Fingerprint=", with: "")
    }

    static func printedFingerprint(_ stdout: String) -> String? {
        stdout.firstMatch(of: /SHA-256: +([0-9A-F:]+)\n/).map { String($0.1) }
    }

    @Test func caPrintsWhereItIsAndTheFingerprintOpenSSLComputes() async throws {
        try await withTemporaryFolder("cli-ca") { folder in
            let data = folder.path
            let first = try await CLI.run(["ca", "--data-dir", data, "--port", "8090"])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.hasPrefix("Made a new local CA in \(data)/ca.\n"), "\(first.stdout)")
            #expect(first.stdout.contains("certificate:  \(data)/ca/root.pem\n"))
            #expect(first.stdout.contains("private key:  \(data)/ca/root-key.pem"))
            #expect(first.stdout.contains("name:         hlschaos local CA ("))
            #expect(first.stdout.firstMatch(of: /Devices install the root from  http:\/\/[0-9.]+:8090\/hlschaos\/setup\n/) != nil, "\(first.stdout)")
            let fingerprint = try #require(Self.printedFingerprint(first.stdout), "\(first.stdout)")
            #expect(fingerprint == (try await Self.opensslFingerprint(data + "/ca/root.pem")))

            let again = try await CLI.run(["ca", "--data-dir", data])
            #expect(again.status == 0)
            #expect(!again.stdout.contains("Made a new"))
            #expect(Self.printedFingerprint(again.stdout) == fingerprint)
            #expect(again.stdout.contains(":8080/hlschaos/setup"))
        }
    }

    @Test func pemAndDERExportTheRoot() async throws {
        try await withTemporaryFolder("cli-ca") { folder in
            let data = folder.path
            let pem = try await CLI.run(["ca", "--data-dir", data, "--pem"])
            #expect(pem.status == 0, "\(pem.stderr)")
            #expect(pem.stdout == (try String(contentsOfFile: data + "/ca/root.pem", encoding: .utf8)))
            #expect(pem.stderr.contains("Made a new local CA"))

            let der = data + "/root.cer"
            let exported = try await CLI.run(["ca", "--data-dir", data, "--der", der])
            #expect(exported.status == 0, "\(exported.stderr)")
            #expect(exported.stdout == "Wrote the root certificate in DER to \(der).\n")
            #expect(try await Self.opensslFingerprint(der, der: true) == (try await Self.opensslFingerprint(data + "/ca/root.pem")))
        }
    }

    @Test func rotateMakesANewRootAndSaysDevicesMustInstallIt() async throws {
        try await withTemporaryFolder("cli-ca") { folder in
            let data = folder.path
            let before = try #require(Self.printedFingerprint(try await CLI.run(["ca", "--data-dir", data]).stdout))
            let rotated = try await CLI.run(["ca", "rotate", "--data-dir", data])
            #expect(rotated.status == 0, "\(rotated.stderr)")
            #expect(rotated.stdout.contains("install the new"))
            #expect(rotated.stdout.contains("\(data)/ca/root.pem.old"))
            let after = try #require(Self.printedFingerprint(rotated.stdout))
            #expect(after != before)
            #expect(after == (try await Self.opensslFingerprint(data + "/ca/root.pem")))
            #expect(try await Self.opensslFingerprint(data + "/ca/root.pem.old") == before)
        }
    }

    @Test func aKeyOthersCanReadIsExit1WithTheChmod() async throws {
        try await withTemporaryFolder("cli-ca") { folder in
            let data = folder.path
            #expect(try await CLI.run(["ca", "--data-dir", data]).status == 0)
            let key = data + "/ca/root-key.pem"
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: key)
            let refused = try await CLI.run(["ca", "--data-dir", data])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("chmod 600 \(key)"), "\(refused.stderr)")
        }
    }
}
