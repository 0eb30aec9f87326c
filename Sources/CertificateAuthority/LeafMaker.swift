import Crypto
import Foundation
import SwiftASN1
import X509

/// Issues server certificates under the root, as Apple (https://support.apple.com/en-us/103769)
/// and Chromium require of a certificate under a user-installed root: names in the subject
/// alternative name, the serverAuth extended key usage, ECDSA P-256 with SHA-256, at most 397 days.
struct LeafMaker: Sendable {
    /// 390 days: under Apple's and Chromium's 397/398-day limits with room for clocks and rounding.
    static let validity: TimeInterval = 390 * 86_400
    /// Started an hour early, for devices whose clock is a little behind.
    static let backdating: TimeInterval = 3_600

    let root: Certificate
    let rootKey: Certificate.PrivateKey
    /// The root's subject key identifier, repeated in each leaf's authority key identifier.
    let rootKeyIdentifier: ArraySlice<UInt8>

    init(root: Certificate, rootKey: P256.Signing.PrivateKey) {
        self.root = root
        self.rootKey = Certificate.PrivateKey(rootKey)
        let fromRoot = (try? root.extensions.subjectKeyIdentifier)?.keyIdentifier
        rootKeyIdentifier = fromRoot ?? SubjectKeyIdentifier(hash: root.publicKey).keyIdentifier
    }

    func issue(for names: [LeafName], now: Date = Date()) throws(LocalCA.Error) -> IssuedLeaf {
        let key = P256.Signing.PrivateKey()
        let notAfter = CertificateEncoding.wholeSeconds(min(now + Self.validity, root.notValidAfter))
        let alternativeNames: [GeneralName] = names.map { name in
            switch name {
            case .dns(let host): .dnsName(host)
            case .ip(_, let bytes): .ipAddress(ASN1OctetString(contentBytes: bytes[...]))
            }
        }
        do {
            // The common name is for people reading the certificate; clients match the SAN only.
            let first = names[0].text
            let subject = try DistinguishedName {
                OrganizationName("hlschaos")
                if first.utf8.count <= 64 { CommonName(first) }
            }
            let leaf = try Certificate(
                version: .v3,
                serialNumber: CertificateEncoding.randomSerialNumber(),
                publicKey: Certificate.PublicKey(key.publicKey),
                notValidBefore: CertificateEncoding.wholeSeconds(max(now - Self.backdating, root.notValidBefore)),
                notValidAfter: notAfter,
                issuer: root.subject,
                subject: subject,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([.serverAuth])
                    SubjectAlternativeNames(alternativeNames)
                    AuthorityKeyIdentifier(keyIdentifier: rootKeyIdentifier)
                },
                issuerPrivateKey: rootKey
            )
            let leafPEM = try CertificateEncoding.pem(leaf)
            return IssuedLeaf(
                certificatePEM: leafPEM,
                chainPEM: [leafPEM, try CertificateEncoding.pem(root)],
                privateKeyPEM: key.pemRepresentation + "\n",
                names: names.map(\.text),
                notAfter: notAfter
            )
        } catch {
            throw LocalCA.Error(.issuing, path: nil, "no certificate could be made for \(names.map(\.text).joined(separator: ", ")): \(error)")
        }
    }
}
