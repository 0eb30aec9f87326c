import CurlShim
import Foundation

/// The system's CA certificates followed by those of `UpstreamConfiguration.extraCAFile`, written
/// once at client init to a file in a private temporary folder that every transfer names with
/// CURLOPT_CAINFO (which on its own would *replace* the system bundle). The folder is removed
/// when the client's curl loop ends (`UpstreamClient.shutdown()`), and by `deinit` for a client
/// freed without one: a process that exits holding its client never runs that `deinit`.
///
/// A file and not CURLOPT_CAINFO_BLOB: curl copies a blob into the connection it sets up for
/// every transfer, plain HTTP too, before it looks for one to reuse (a 214 KB copy per request
/// with Debian's bundle; measured about +80 µs of CPU per transfer), and builds the certificate store
/// from it again for every TLS connection, while a CAINFO file without CAPATH lets curl keep the
/// parsed store in the multi handle.
final class CABundle: @unchecked Sendable {
    /// The combined file curl reads.
    let path: String
    /// The system bundle that was included, nil when none was found (the extra file alone then,
    /// plus curl's default CA folder).
    let systemBundlePath: String?
    private let folder: String

    /// The bundle this libcurl uses by default, else Debian's, when it exists.
    static func defaultSystemBundlePath() -> String? {
        var candidates: [String] = []
        if let builtIn = cs_default_ca_bundle() { candidates.append(String(cString: builtIn)) }
        candidates.append("/etc/ssl/certs/ca-certificates.crt")
        return candidates.first { FileManager.default.isReadableFile(atPath: $0) }
    }

    /// Throws `.setup` naming `extraCAFile` when it is missing, unreadable or holds no PEM certificate.
    init(extraCAFile: String, systemBundlePath: String?) throws(UpstreamError) {
        let extra = try Self.readExtraFile(extraCAFile)
        if let problem = PEMCertificates.problem(in: extra) {
            throw .setup("the extra CA file \(extraCAFile) \(problem)")
        }
        var combined: [UInt8] = []
        var included: String? = nil
        if let systemBundlePath, let system = FileManager.default.contents(atPath: systemBundlePath) {
            combined = Array(system)
            if combined.last != UInt8(ascii: "\n") { combined.append(UInt8(ascii: "\n")) }
            included = systemBundlePath
        }
        combined += extra
        self.systemBundlePath = included
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("hlschaos-upstream-ca-XXXXXX").path
        var templateBytes = Array(template.utf8CString)
        guard let made = mkdtemp(&templateBytes) else {
            throw .setup("cannot make a temporary folder for the CA bundle (\(template)): \(String(cString: strerror(errno)))")
        }
        self.folder = String(cString: made)
        self.path = folder + "/ca-bundle.pem"
        do {
            try Data(combined).write(to: URL(fileURLWithPath: path))
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw .setup("cannot write the CA bundle \(path): \(error)")
        }
    }

    /// Removes the folder. Safe to call twice.
    func remove() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    deinit { remove() }

    private static func readExtraFile(_ path: String) throws(UpstreamError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .setup("the extra CA file \(path) does not exist; give the path of a PEM file with the certificates to trust")
        }
        if isDirectory.boolValue { throw .setup("the extra CA file \(path) is a folder; give a PEM file") }
        guard FileManager.default.isReadableFile(atPath: path), let contents = FileManager.default.contents(atPath: path) else {
            throw .setup("the extra CA file \(path) is not readable by this user; check its permissions")
        }
        return Array(contents)
    }
}

/// Checks that bytes are PEM certificates OpenSSL will load: curl reads a CA file with
/// PEM_X509_INFO_read_bio, which rejects the whole file over one bad block, and every TLS
/// transfer would then fail.
enum PEMCertificates {
    /// Why `bytes` is no usable list of PEM certificates ("holds no PEM certificate…"), or nil.
    static func problem(in bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        var certificates = 0
        var rest = Substring(text)
        while let begin = rest.range(of: "-----BEGIN ") {
            guard let labelEnd = rest[begin.upperBound...].range(of: "-----") else {
                return "has a broken PEM header (-----BEGIN without its closing -----)"
            }
            let label = String(rest[begin.upperBound..<labelEnd.lowerBound])
            guard label == "CERTIFICATE" || label == "TRUSTED CERTIFICATE" else {
                return "holds a \(label.oneLine) block; give certificates only (-----BEGIN CERTIFICATE-----)"
            }
            guard let end = rest[labelEnd.upperBound...].range(of: "-----END \(label)-----") else {
                return "has no -----END \(label)----- for certificate \(certificates + 1)"
            }
            let body = String(rest[labelEnd.upperBound..<end.lowerBound])
            guard let der = Data(base64Encoded: body, options: .ignoreUnknownCharacters), isDERSequence(Array(der), exact: label == "CERTIFICATE") else {
                return "has a damaged certificate (number \(certificates + 1)): its base64 is not a DER certificate"
            }
            certificates += 1
            rest = rest[end.upperBound...]
        }
        if certificates == 0 {
            return "holds no PEM certificate (-----BEGIN CERTIFICATE-----); convert a DER file with `openssl x509 -inform der -in ca.der -out ca.pem`"
        }
        return nil
    }

    /// An ASN.1 SEQUENCE spanning `der` (a certificate), or starting it when not `exact` (a trusted
    /// certificate: OpenSSL's trust settings follow it).
    private static func isDERSequence(_ der: [UInt8], exact: Bool) -> Bool {
        guard der.count >= 2, der[0] == 0x30 else { return false }
        let first = Int(der[1])
        if first < 0x80 { return exact ? der.count == 2 + first : der.count >= 2 + first }
        let lengthBytes = first & 0x7f
        guard (1...3).contains(lengthBytes), der.count >= 2 + lengthBytes else { return false }
        let length = der[2..<(2 + lengthBytes)].reduce(0) { $0 << 8 | Int($1) }
        return exact ? der.count == 2 + lengthBytes + length : der.count >= 2 + lengthBytes + length
    }
}
