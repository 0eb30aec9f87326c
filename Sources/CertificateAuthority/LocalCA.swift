import Crypto
import Foundation
import Synchronization
import X509

/// hlschaos's own certificate authority: a root certificate and its private key in a folder of
/// this machine's, made on first use; leaf certificates for the host names and addresses that
/// devices connect to, made on demand and kept in a bounded cache. A device that trusts the
/// root (installed once) accepts the leaves. The private key never leaves the folder.
public final class LocalCA: Sendable {
    public let directory: String
    public let certificatePath: String
    /// Never served: whoever has it can make certificates every device that trusts the root accepts.
    public let privateKeyPath: String
    public let rootPEM: String
    public let rootDER: [UInt8]
    /// SHA-256 of the root's DER, "AB:CD:…": what a device shows for the certificate it installs.
    public let fingerprintSHA256: String
    public let commonName: String
    public let notAfter: Date
    /// True when this call made the CA (its folder had no CA before).
    public let isNew: Bool
    public let leafCacheCapacity: Int

    private let maker: LeafMaker
    private let cache: Mutex<LeafCache>

    public static let defaultLeafCacheCapacity = 1000
    /// The most names one leaf is made for.
    public static let maxNamesPerLeaf = 100

    private init(files: CAFiles, root: Certificate, key: P256.Signing.PrivateKey, isNew: Bool, leafCacheCapacity: Int) throws(Error) {
        directory = files.directory
        certificatePath = files.certificatePath
        privateKeyPath = files.privateKeyPath
        do {
            rootPEM = try CertificateEncoding.pem(root)
            rootDER = try CertificateEncoding.der(root)
        } catch {
            throw Error(.corrupt, path: files.certificatePath, "\(files.certificatePath) cannot be encoded again (\(error)): make a new CA with `hlschaos ca rotate`")
        }
        fingerprintSHA256 = CertificateEncoding.fingerprintSHA256(der: rootDER)
        commonName = root.subject.flatMap { $0 }.first { $0.type == .RDNAttributeType.commonName }.flatMap { String($0.value) } ?? ""
        notAfter = root.notValidAfter
        self.isNew = isNew
        self.leafCacheCapacity = max(1, leafCacheCapacity)
        maker = LeafMaker(root: root, rootKey: key)
        cache = Mutex(LeafCache(capacity: leafCacheCapacity))
    }

    // MARK: - Where it lives

    /// The data folder: `$XDG_DATA_HOME/hlschaos`, else `~/.local/share/hlschaos`.
    public static var defaultDataDirectory: String {
        let environment = ProcessInfo.processInfo.environment
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/hlschaos" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/hlschaos"
    }

    /// The CA's folder in a data folder (`--data-dir`): `<data folder>/ca`.
    public static func directory(inDataDirectory dataDirectory: String) -> String {
        (dataDirectory.hasSuffix("/") ? String(dataDirectory.dropLast()) : dataDirectory) + "/ca"
    }

    /// `$XDG_DATA_HOME/hlschaos/ca`, else `~/.local/share/hlschaos/ca`.
    public static var defaultDirectory: String { directory(inDataDirectory: defaultDataDirectory) }

    // MARK: - Loading, making, rotating

    /// Loads the CA from `directory`, or makes one there if it has none: the folder (0700, with
    /// its parents), `root.pem` and `root-key.pem` (0600). Refuses a key file other users can
    /// read, files that do not parse, a key that is not the certificate's, an expired root.
    public static func loadOrCreate(directory: String, leafCacheCapacity: Int = defaultLeafCacheCapacity) throws(Error) -> LocalCA {
        let files = CAFiles(directory: directory)
        try files.makeDirectory()
        return try files.locked { () throws(Error) -> LocalCA in
            switch (files.exists(files.certificatePath), files.exists(files.privateKeyPath)) {
            case (false, false):
                return try create(files, leafCacheCapacity: leafCacheCapacity)
            case (true, true):
                return try load(files, leafCacheCapacity: leafCacheCapacity)
            case (true, false):
                throw Error(.fileMissing, path: files.privateKeyPath, "\(files.privateKeyPath) is missing (its certificate \(files.certificatePath) is there): restore it, or make a new CA with `hlschaos ca rotate` (devices must then install the new root)")
            case (false, true):
                throw Error(.fileMissing, path: files.certificatePath, "\(files.certificatePath) is missing (its private key \(files.privateKeyPath) is there): restore it, or make a new CA with `hlschaos ca rotate` (devices must then install the new root)")
            }
        }
    }

    /// Makes a new root in `directory`. The previous files are kept beside it as `root.pem.old`
    /// and `root-key.pem.old` (replacing older ones); devices must install the new root.
    public static func rotate(directory: String, leafCacheCapacity: Int = defaultLeafCacheCapacity) throws(Error) -> LocalCA {
        let files = CAFiles(directory: directory)
        try files.makeDirectory()
        return try files.locked { () throws(Error) -> LocalCA in
            try files.retire()
            return try create(files, leafCacheCapacity: leafCacheCapacity)
        }
    }

    private static func create(_ files: CAFiles, leafCacheCapacity: Int) throws(Error) -> LocalCA {
        let made: (certificate: Certificate, key: P256.Signing.PrivateKey)
        do {
            made = try RootMaker.make()
        } catch {
            throw Error(.issuing, path: files.certificatePath, "the root certificate could not be made: \(error)")
        }
        let ca = try LocalCA(files: files, root: made.certificate, key: made.key, isNew: true, leafCacheCapacity: leafCacheCapacity)
        // The key first: a certificate on disk always has its key beside it.
        try files.writeAtomically(made.key.pemRepresentation + "\n", to: files.privateKeyPath, permissions: 0o600)
        try files.writeAtomically(ca.rootPEM, to: files.certificatePath, permissions: 0o644)
        return ca
    }

    private static func load(_ files: CAFiles, leafCacheCapacity: Int) throws(Error) -> LocalCA {
        let keyPath = files.privateKeyPath
        let certificatePath = files.certificatePath
        let remake = "restore it from a backup, or make a new CA with `hlschaos ca rotate` (devices must then install the new root)"
        if let mode = files.permissions(keyPath), mode & 0o077 != 0 {
            throw Error(.keyExposed, path: keyPath, "\(keyPath) is open to other users (mode 0\(String(mode, radix: 8))), and whoever reads it can make certificates your devices trust: run `chmod 600 \(keyPath)`")
        }
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: try files.read(keyPath))
        } catch let error as Error {
            throw error
        } catch {
            throw Error(.corrupt, path: keyPath, "\(keyPath) is not an ECDSA P-256 private key in PEM: \(remake)")
        }
        let root: Certificate
        do {
            root = try Certificate(pemEncoded: try files.read(certificatePath))
        } catch let error as Error {
            throw error
        } catch {
            throw Error(.corrupt, path: certificatePath, "\(certificatePath) is not a PEM certificate (\(error)): \(remake)")
        }
        guard root.publicKey == Certificate.PublicKey(key.publicKey) else {
            throw Error(.keyMismatch, path: keyPath, "\(keyPath) is not the private key of \(certificatePath): put back the pair that belongs together, or make a new CA with `hlschaos ca rotate` (devices must then install the new root)")
        }
        guard case .isCertificateAuthority = try? root.extensions.basicConstraints else {
            throw Error(.corrupt, path: certificatePath, "\(certificatePath) is not a CA certificate: \(remake)")
        }
        guard root.notValidAfter > Date() else {
            throw Error(.expired, path: certificatePath, "\(certificatePath) expired on \(root.notValidAfter.formatted(.iso8601)): make a new CA with `hlschaos ca rotate` (devices must then install the new root)")
        }
        return try LocalCA(files: files, root: root, key: key, isNew: false, leafCacheCapacity: leafCacheCapacity)
    }

    // MARK: - Leaves

    /// A leaf for a DNS name (`*.example.com` allowed) or an IP address (IPv4, or IPv6 as written
    /// in a URL's host, brackets optional), made on first use and then served from the cache.
    public func leaf(for name: String) throws(Error) -> IssuedLeaf {
        try leaf(forNames: [name])
    }

    /// A leaf for several names at once (a listener's host names and addresses). The first name
    /// is also the leaf's common name.
    public func leaf(forNames names: [String]) throws(Error) -> IssuedLeaf {
        var parsed: [LeafName] = []
        for name in names {
            let leafName = try LeafName.parse(name)
            if !parsed.contains(leafName) { parsed.append(leafName) }
        }
        guard !parsed.isEmpty else { throw Error(.invalidName, path: nil, "a certificate needs at least one host name or address") }
        guard parsed.count <= Self.maxNamesPerLeaf else {
            throw Error(.invalidName, path: nil, "\(parsed.count) names for one certificate; at most \(Self.maxNamesPerLeaf)")
        }
        let now = Date()
        if let cached = cache.withLock({ $0.leaf(for: parsed, now: now) }) { return cached }
        let made = try maker.issue(for: parsed, now: now)
        return cache.withLock { $0.keep(made, for: parsed, now: now) }
    }

    /// How many leaves the cache holds (at most `leafCacheCapacity`).
    public var cachedLeafCount: Int { cache.withLock { $0.count } }
}
