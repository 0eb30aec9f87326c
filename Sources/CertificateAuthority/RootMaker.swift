import Crypto
import Foundation
import X509

/// Makes the root certificate: a self-signed ECDSA P-256 CA that signs leaves and nothing else.
enum RootMaker {
    /// About ten years. Apple and Chromium put no limit on a root's validity; leaves are the ones kept short.
    static let validity: TimeInterval = 3650 * 86_400
    /// Started a day early, for devices whose clock is behind.
    static let backdating: TimeInterval = 86_400

    static func make(now: Date = Date()) throws -> (certificate: Certificate, key: P256.Signing.PrivateKey) {
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let name = try DistinguishedName {
            OrganizationName("hlschaos")
            CommonName(commonName(hostName: hostName(), created: now))
        }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: CertificateEncoding.randomSerialNumber(),
            publicKey: publicKey,
            notValidBefore: CertificateEncoding.wholeSeconds(now - backdating),
            notValidAfter: CertificateEncoding.wholeSeconds(now + validity),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                // Leaves only: no intermediate may follow the root.
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: publicKey)
            },
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        return (certificate, key)
    }

    /// "hlschaos local CA (studio-mac, created 2026-11-26)": which machine's CA a device trusts,
    /// and which generation, told apart in a device's certificate list. Kept within the 64
    /// characters X.520 allows a common name by shortening the host name.
    static func commonName(hostName: String, created: Date) -> String {
        let day = created.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).year().month().day())
        let fixed = "hlschaos local CA (, created \(day))"
        var host = hostName.split(separator: ".").first.map(String.init) ?? ""
        if host.isEmpty { host = "localhost" }
        host = String(host.prefix(64 - fixed.count))
        return "hlschaos local CA (\(host), created \(day))"
    }

    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
