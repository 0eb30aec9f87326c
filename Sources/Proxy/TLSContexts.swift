import Addressing
import CertificateAuthority
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// The server TLS the proxy speaks to devices: one context for the HTTPS listener, and one per
/// intercepted host (kept in a bounded cache) whose leaf names that host, or the name the client
/// asks for by SNI when it differs. ALPN offers `h2` and `http/1.1` on all of them.
final class TLSContexts: Sendable {
    let issuer: LocalCA
    /// Contexts by host, and the hosts in the order they were added (the oldest goes first).
    private let cache = NIOLockedValueBox((contexts: [String: NIOSSLContext](), order: [String]()))
    static let capacity = 512
    static let applicationProtocols = ["h2", "http/1.1"]

    init(issuer: LocalCA) {
        self.issuer = issuer
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The context for a `CONNECT` to `host`.
    func interception(host: String) throws -> NIOSSLContext {
        if let cached = cache.withLockedValue({ $0.contexts[host] }) { return cached }
        let context = try Self.context(issuer: issuer, names: [host], sni: true)
        cache.withLockedValue { cache in
            guard cache.contexts.updateValue(context, forKey: host) == nil else { return }
            cache.order.append(host)
            if cache.order.count > Self.capacity { cache.contexts[cache.order.removeFirst()] = nil }
        }
        return context
    }

    /// A context serving a leaf for `names` (the HTTPS listener's, from the local CA).
    static func context(issuer: LocalCA, names: [String], sni: Bool = false) throws -> NIOSSLContext {
        let leaf = try issuer.leaf(forNames: names)
        var configuration = try serverConfiguration(chainPEM: leaf.chainPEM, keyPEM: leaf.privateKeyPEM)
        if sni {
            // A client that CONNECTs to an address but names a host by SNI gets a leaf for that host.
            configuration.sslContextCallback = { values, promise in
                guard let name = values.serverHostname?.lowercased(), !names.contains(name),
                      HostName.isValid(name) || IPAddress(name) != nil
                else { return promise.succeed(.noChanges) }
                do {
                    let other = try issuer.leaf(forNames: [name])
                    var override = NIOSSLContextConfigurationOverride()
                    override.certificateChain = try other.chainPEM.map { .certificate(try NIOSSLCertificate(bytes: Array($0.utf8), format: .pem)) }
                    override.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(other.privateKeyPEM.utf8), format: .pem))
                    promise.succeed(override)
                } catch {
                    promise.fail(error)
                }
            }
        }
        return try NIOSSLContext(configuration: configuration)
    }

    /// A context serving the user's own certificate chain and key (`--tls-cert`, `--tls-key`).
    static func context(certificateFile: String, keyFile: String) throws -> NIOSSLContext {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do { chain = try NIOSSLCertificate.fromPEMFile(certificateFile) } catch {
            throw Failure(description: "\(certificateFile): cannot read a PEM certificate chain (\(error))")
        }
        guard !chain.isEmpty else { throw Failure(description: "\(certificateFile): no certificate in the file (expected PEM)") }
        do { key = try NIOSSLPrivateKey(file: keyFile, format: .pem) } catch {
            throw Failure(description: "\(keyFile): cannot read a PEM private key (\(error))")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.applicationProtocols = applicationProtocols
        do { return try NIOSSLContext(configuration: configuration) } catch {
            throw Failure(description: "\(certificateFile) and \(keyFile) do not make a usable TLS identity (does the key belong to the certificate?): \(error)")
        }
    }

    private static func serverConfiguration(chainPEM: [String], keyPEM: String) throws -> TLSConfiguration {
        let chain = try chainPEM.map { NIOSSLCertificateSource.certificate(try NIOSSLCertificate(bytes: Array($0.utf8), format: .pem)) }
        let key = try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
        configuration.applicationProtocols = applicationProtocols
        return configuration
    }
}
