import CertificateAuthority
import Foundation
import Testing
import TestSupport

/// Leaves as OpenSSL reads them: what Apple and Chromium require of a server certificate under a
/// user-installed root, and a chain that verifies against this root and no other.
/// A class: Swift Testing makes one instance per test, and its `deinit` removes the test's folder.
@Suite final class LeafCertificateTests {
    let folder: TemporaryFolder
    let ca: LocalCA

    init() throws {
        folder = try TemporaryFolder("ca")
        do {
            ca = try LocalCA.loadOrCreate(directory: folder.path + "/ca", leafCacheCapacity: 3)
        } catch {
            folder.remove()
            throw error
        }
    }

    deinit { folder.remove() }

    private func text(of pem: String) async throws -> String {
        let run = try await ToolRun.run("openssl", ["x509", "-noout", "-text"], input: pem)
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout
    }

    /// notBefore and notAfter as OpenSSL reads them.
    private func validity(of pem: String) async throws -> (Date, Date) {
        let run = try await ToolRun.run("openssl", ["x509", "-noout", "-dates", "-dateopt", "iso_8601"], input: pem)
        let style = Date.ISO8601FormatStyle(dateTimeSeparator: .space)
        var dates: [String: Date] = [:]
        for line in run.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            dates[parts[0]] = try style.parse(parts[1])
        }
        return (try #require(dates["notBefore"]), try #require(dates["notAfter"]))
    }

    @Test func theRootIsACAForLeavesOnly() async throws {
        let text = try await text(of: ca.rootPEM)
        #expect(text.contains("X509v3 Basic Constraints: critical\n                CA:TRUE"))
        #expect(text.contains("X509v3 Key Usage: critical\n                Certificate Sign, CRL Sign\n"))
        #expect(text.contains("X509v3 Subject Key Identifier"))
        #expect(text.contains("Signature Algorithm: ecdsa-with-SHA256"))
        #expect(text.contains("ASN1 OID: prime256v1"))
        #expect(text.contains("Subject: O = hlschaos, CN = \"\(ca.commonName)\""))
        let fingerprint = try await ToolRun.run("openssl", ["x509", "-noout", "-fingerprint", "-sha256", "-in", ca.certificatePath])
        #expect(fingerprint.stdout == "sha256 Fingerprint=\(ca.fingerprintSHA256)\n")
    }

    @Test func aLeafHasTheNameInItsSANServerAuthAndAtMost397Days() async throws {
        let leaf = try ca.leaf(for: "Media.Example.TEST.")
        #expect(leaf.names == ["media.example.test"])
        let text = try await text(of: leaf.certificatePEM)
        #expect(text.contains("X509v3 Subject Alternative Name: \n                DNS:media.example.test\n"))
        #expect(text.contains("X509v3 Extended Key Usage: \n                TLS Web Server Authentication\n"))
        #expect(text.contains("X509v3 Key Usage: critical\n                Digital Signature\n"))
        #expect(text.contains("X509v3 Basic Constraints: critical\n                CA:FALSE"))
        #expect(text.contains("X509v3 Authority Key Identifier"))
        #expect(text.contains("Signature Algorithm: ecdsa-with-SHA256"))
        #expect(text.contains("ASN1 OID: prime256v1"))
        #expect(text.contains("Issuer: O = hlschaos, CN = \"\(ca.commonName)\""))

        let (notBefore, notAfter) = try await validity(of: leaf.certificatePEM)
        #expect(notAfter.timeIntervalSince(notBefore) <= 397 * 86_400)
        #expect(notBefore <= Date())
        #expect(notAfter > Date().addingTimeInterval(389 * 86_400))
        #expect(notAfter == leaf.notAfter)

        let serial = try await ToolRun.run("openssl", ["x509", "-noout", "-serial"], input: leaf.certificatePEM)
        let hex = serial.stdout.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "serial=", with: "")
        #expect(hex.count == 32)  // 16 bytes, positive: the first hex digit is 4–7
        #expect("4567".contains(hex.first ?? "x"))

        #expect(leaf.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let key = try await ToolRun.run("openssl", ["pkey", "-noout", "-text"], input: leaf.privateKeyPEM)
        #expect(key.stdout.contains("ASN1 OID: prime256v1"))
        #expect(leaf.chainPEM == [leaf.certificatePEM, ca.rootPEM])
    }

    @Test func opensslVerifiesALeafAgainstThisRootAndNoOther() async throws {
        let leaf = try ca.leaf(for: "cdn.example.test")
        let leafFile = try folder.file("leaf.pem", leaf.certificatePEM)
        let verified = try await ToolRun.run(
            "openssl", ["verify", "-CAfile", ca.certificatePath, "-purpose", "sslserver", "-verify_hostname", "cdn.example.test", leafFile])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout == "\(leafFile): OK\n")

        let wrongName = try await ToolRun.run(
            "openssl", ["verify", "-CAfile", ca.certificatePath, "-verify_hostname", "other.example.test", leafFile])
        #expect(wrongName.status != 0)

        let other = try LocalCA.loadOrCreate(directory: folder.path + "/other")
        let refused = try await ToolRun.run("openssl", ["verify", "-CAfile", other.certificatePath, leafFile])
        #expect(refused.status != 0)
        #expect(refused.stdout.contains("OK") == false)
    }

    @Test func anAddressGetsAnIPSANIPv4AndIPv6() async throws {
        let v4 = try ca.leaf(for: "192.168.1.20")
        #expect(try await text(of: v4.certificatePEM).contains("IP Address:192.168.1.20\n"))
        let v6 = try ca.leaf(for: "[2001:DB8:0:0::1]")
        #expect(v6.names == ["2001:db8::1"])
        #expect(try await text(of: v6.certificatePEM).contains("IP Address:2001:DB8:0:0:0:0:0:1\n"))
        let leafFile = try folder.file("v4.pem", v4.certificatePEM)
        let verified = try await ToolRun.run("openssl", ["verify", "-CAfile", ca.certificatePath, "-verify_ip", "192.168.1.20", leafFile])
        #expect(verified.status == 0, "\(verified.stderr)")
    }

    @Test func severalNamesGoInOneLeaf() async throws {
        let leaf = try ca.leaf(forNames: ["studio.local", "localhost", "10.0.0.5", "::1", "localhost"])
        #expect(leaf.names == ["studio.local", "localhost", "10.0.0.5", "::1"])
        let text = try await text(of: leaf.certificatePEM)
        #expect(text.contains("DNS:studio.local, DNS:localhost, IP Address:10.0.0.5, IP Address:0:0:0:0:0:0:0:1\n"))
        #expect(text.contains("CN = studio.local"))
    }

    @Test func aWildcardIsTheWholeFirstLabelOnly() async throws {
        let leaf = try ca.leaf(for: "*.cdn.example.test")
        #expect(try await text(of: leaf.certificatePEM).contains("DNS:*.cdn.example.test\n"))
        let leafFile = try folder.file("wild.pem", leaf.certificatePEM)
        let verified = try await ToolRun.run(
            "openssl", ["verify", "-CAfile", ca.certificatePath, "-verify_hostname", "edge1.cdn.example.test", leafFile])
        #expect(verified.status == 0, "\(verified.stderr)")
    }

    @Test(arguments: [
        ("", "the name is empty"),
        (".", "the name is empty"),
        ("a..b", "empty label"),
        ("*", "a wildcard needs at least two labels"),
        ("*.com", "a wildcard needs at least two labels"),
        ("a*.example.com", "whole first label"),
        ("www.*.example.com", "whole first label"),
        ("*.*.example.com", "whole first label"),
        ("exa mple.com", "characters other than letters"),
        ("host/path", "characters other than letters"),
        ("-a.example.com", "starts or ends with '-'"),
        (String(repeating: "a", count: 64) + ".com", "longer than 63"),
        (String(repeating: "abcdefghi.", count: 26), "longer than 253"),
        ("bücher.example", "punycode"),
        ("256.1.1.1", "not an IPv4 address"),
        ("1.2.3", "not an IPv4 address"),
        ("010.1.1.1", "not an IPv4 address"),
        ("fe80::1%eth0", "not an IPv6 address"),
        ("1:2:3", "not an IPv6 address"),
        ("[example.com]", "only IPv6 addresses are written in brackets"),
    ])
    func aNameThatCannotBeCertifiedIsRefusedSayingWhy(name: String, reason: String) throws {
        let error = #expect(throws: LocalCA.Error.self) { try ca.leaf(for: name) }
        #expect(error?.kind == .invalidName)
        #expect(error?.description.contains(reason) == true, "\(error?.description ?? "")")
        #expect(error?.description.contains("\"\(name)\"") == true)
    }

    @Test func noNamesAtAllIsRefused() throws {
        let error = #expect(throws: LocalCA.Error.self) { try ca.leaf(forNames: []) }
        #expect(error?.kind == .invalidName)
    }

    @Test func theCacheReturnsTheSameLeafAndDropsTheLeastRecentlyUsed() throws {
        let a = try ca.leaf(for: "a.example.test")
        #expect(try ca.leaf(for: "A.example.test.").certificatePEM == a.certificatePEM)
        let b = try ca.leaf(for: "b.example.test")
        _ = try ca.leaf(for: "c.example.test")
        #expect(ca.cachedLeafCount == 3)
        _ = try ca.leaf(for: "a.example.test")  // a is now more recent than b
        _ = try ca.leaf(for: "d.example.test")
        #expect(ca.cachedLeafCount == 3)
        #expect(try ca.leaf(for: "a.example.test").certificatePEM == a.certificatePEM)
        #expect(try ca.leaf(for: "b.example.test").certificatePEM != b.certificatePEM)
        for index in 0..<20 { _ = try ca.leaf(for: "n\(index).example.test") }
        #expect(ca.cachedLeafCount == 3)
    }

    @Test func concurrentCallersForOneNameGetOneLeaf() async throws {
        let ca = self.ca
        let pems = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<16 { group.addTask { try ca.leaf(for: "together.example.test").certificatePEM } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(pems.count == 1)
    }
}
