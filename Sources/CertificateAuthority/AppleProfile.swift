import Crypto
import Foundation
import Markup

/// An iOS/iPadOS/macOS/tvOS configuration profile (`.mobileconfig`: an XML property list,
/// unsigned) with one payload, `com.apple.security.root`, that installs the CA's root. Its UUIDs
/// and identifiers come from the root's fingerprint, so the same root gives the same profile
/// (a device replaces it rather than listing it twice) and a rotated root a new one.
public enum AppleProfile {
    /// What the setup page serves it as.
    public static let contentType = "application/x-apple-aspen-config"

    public static func mobileconfig(for ca: LocalCA) -> [UInt8] {
        mobileconfig(rootDER: ca.rootDER, fingerprint: ca.fingerprintSHA256, commonName: ca.commonName)
    }

    static func mobileconfig(rootDER: [UInt8], fingerprint: String, commonName: String) -> [UInt8] {
        let shortFingerprint = fingerprint.split(separator: ":").prefix(4).joined(separator: ":")
        let tag = fingerprint.replacingOccurrences(of: ":", with: "").prefix(16)
        let identifier = "local.hlschaos.ca.\(tag)"
        let description = """
            Installs \(commonName), the root certificate of hlschaos on the machine that served this profile, \
            so that this device accepts the certificates hlschaos makes for the streams it proxies. \
            SHA-256 fingerprint: \(fingerprint). \
            After installing, turn on full trust for it in Settings > General > About > Certificate Trust Settings.
            """
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>PayloadContent</key>
            \t<array>
            \t\t<dict>
            \t\t\t<key>PayloadCertificateFileName</key>
            \t\t\t<string>hlschaos-root.cer</string>
            \t\t\t<key>PayloadContent</key>
            \t\t\t<data>
            \(base64Lines(rootDER, indent: "\t\t\t"))
            \t\t\t</data>
            \t\t\t<key>PayloadDescription</key>
            \t\t\t<string>Adds the hlschaos root certificate</string>
            \t\t\t<key>PayloadDisplayName</key>
            \t\t\t<string>\(Markup.escape(commonName))</string>
            \t\t\t<key>PayloadIdentifier</key>
            \t\t\t<string>\(identifier).root</string>
            \t\t\t<key>PayloadType</key>
            \t\t\t<string>com.apple.security.root</string>
            \t\t\t<key>PayloadUUID</key>
            \t\t\t<string>\(uuid(fingerprint: fingerprint, purpose: "root payload"))</string>
            \t\t\t<key>PayloadVersion</key>
            \t\t\t<integer>1</integer>
            \t\t</dict>
            \t</array>
            \t<key>PayloadDescription</key>
            \t<string>\(Markup.escape(description))</string>
            \t<key>PayloadDisplayName</key>
            \t<string>hlschaos local CA \(shortFingerprint)…</string>
            \t<key>PayloadIdentifier</key>
            \t<string>\(identifier)</string>
            \t<key>PayloadOrganization</key>
            \t<string>hlschaos</string>
            \t<key>PayloadRemovalDisallowed</key>
            \t<false/>
            \t<key>PayloadType</key>
            \t<string>Configuration</string>
            \t<key>PayloadUUID</key>
            \t<string>\(uuid(fingerprint: fingerprint, purpose: "profile"))</string>
            \t<key>PayloadVersion</key>
            \t<integer>1</integer>
            </dict>
            </plist>

            """
        return Array(xml.utf8)
    }

    /// A name-based UUID (version 5 layout, SHA-256 rather than SHA-1) of the fingerprint and what it is for.
    static func uuid(fingerprint: String, purpose: String) -> String {
        var bytes = Array(SHA256.hash(data: Array("hlschaos \(purpose) \(fingerprint)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(hex.dropFirst(range.lowerBound).prefix(range.count))
        }
        return groups.joined(separator: "-")
    }

    private static func base64Lines(_ bytes: [UInt8], indent: String) -> String {
        let text = Data(bytes).base64EncodedString()
        var lines: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            lines.append(indent + rest.prefix(52))
            rest = rest.dropFirst(52)
        }
        return lines.joined(separator: "\n")
    }
}
