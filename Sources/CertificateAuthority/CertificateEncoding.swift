import Crypto
import Foundation
import SwiftASN1
import X509

/// What every certificate made here shares: random serial numbers, whole-second dates, the
/// encodings a file, a TLS library and a device read.
enum CertificateEncoding {
    /// A random positive serial of 16 bytes (RFC 5280: positive, at most 20 octets; CA/Browser
    /// Forum: at least 64 random bits). The first byte has its top bit clear (positive) and a
    /// bit below it set (no leading zero byte to drop), so the DER integer is exactly 16 bytes.
    static func randomSerialNumber() -> Certificate.SerialNumber {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255) }
        bytes[0] = (bytes[0] & 0x7F) | 0x40
        return Certificate.SerialNumber(bytes: bytes)
    }

    /// Certificates store whole seconds: round down here so that what is reported is what is signed.
    static func wholeSeconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }

    static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    static func pem(_ certificate: Certificate) throws -> String {
        try certificate.serializeAsPEM().pemString + "\n"
    }

    /// "AB:CD:…": SHA-256 of the DER, upper-case hex in colon-separated pairs, as Keychain,
    /// Android's certificate screens and `openssl x509 -fingerprint -sha256` show it.
    static func fingerprintSHA256(der: [UInt8]) -> String {
        SHA256.hash(data: der).map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
    }
}
