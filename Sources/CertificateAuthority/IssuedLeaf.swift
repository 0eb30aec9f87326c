import Foundation

/// A server certificate made by the local CA, with its own private key, in PEM: what a TLS
/// library loads (`NIOSSLCertificate.fromPEMBytes`, `NIOSSLPrivateKey(bytes:format: .pem)`).
public struct IssuedLeaf: Sendable {
    /// The leaf alone.
    public let certificatePEM: String
    /// The leaf first, then the root: what a server sends.
    public let chainPEM: [String]
    /// PKCS#8 ("BEGIN PRIVATE KEY"), ECDSA P-256.
    public let privateKeyPEM: String
    /// The names in its subject alternative name, as written there (lower case, IPv6 compressed).
    public let names: [String]
    public let notAfter: Date
}
