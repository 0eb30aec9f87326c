/// An IPv4 or IPv6 address as 16 bytes (IPv4 mapped into `::ffff:0:0/96`), parsed without the C
/// library so that the pure modules can reason about client and target addresses.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    public var bytes: [UInt8]  // 16
    public var isV4: Bool

    public init?(_ text: some StringProtocol) {
        let text = Substring(text)
        if let v4 = Self.parseV4(text) {
            bytes = Array(repeating: 0, count: 10) + [0xff, 0xff] + v4
            isV4 = true
        } else if let v6 = Self.parseV6(text) {
            bytes = v6
            // An IPv4 client of a dual-stack listener shows up as ::ffff:a.b.c.d: the same address.
            isV4 = v6.prefix(12).elementsEqual(Array(repeating: 0, count: 10) + [0xff, 0xff])
        } else {
            return nil
        }
    }

    /// The canonical text (RFC 5952 for IPv6: lowercase, no leading zeros, the longest run of two or
    /// more zero groups as `::`), so that one address has one spelling whatever form it came in.
    public var description: String {
        if isV4 { return bytes[12...].map(String.init).joined(separator: ".") }
        let groups = stride(from: 0, to: 16, by: 2).map { Int(bytes[$0]) << 8 | Int(bytes[$0 + 1]) }
        var best = (start: -1, length: 0), run = (start: -1, length: 0)
        for (index, group) in groups.enumerated() {
            if group == 0 {
                run = run.start < 0 ? (index, 1) : (run.start, run.length + 1)
                if run.length > best.length { best = run }
            } else {
                run = (-1, 0)
            }
        }
        let text = groups.map { String($0, radix: 16) }
        guard best.length >= 2 else { return text.joined(separator: ":") }
        let head = text[..<best.start].joined(separator: ":"), tail = text[(best.start + best.length)...].joined(separator: ":")
        return head + "::" + tail
    }

    public var isLoopback: Bool { isV4 ? bytes[12] == 127 : bytes == Array(repeating: 0, count: 15) + [1] }
    public var isUnspecified: Bool { isV4 ? bytes[12...].allSatisfy { $0 == 0 } : bytes.allSatisfy { $0 == 0 } }
    /// 169.254.0.0/16 (the cloud metadata service 169.254.169.254 among them) and fe80::/10.
    public var isLinkLocal: Bool {
        isV4 ? bytes[12] == 169 && bytes[13] == 254 : bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80
    }

    private static func parseV4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var result: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.utf8.count <= 3, part.utf8.allSatisfy({ (48...57).contains($0) }),
                  let value = Int(part), value <= 255 else { return nil }
            result.append(UInt8(value))
        }
        return result
    }

    private static func parseV6(_ text: Substring) -> [UInt8]? {
        guard text.contains(":"), text.utf8.count <= 45 else { return nil }
        var text = text
        if let percent = text.firstIndex(of: "%") { text = text[..<percent] }  // zone id
        var halves = [String(text)]
        if let gap = text.firstRange(of: "::") {
            halves = [String(text[..<gap.lowerBound]), String(text[gap.upperBound...])]
            guard !halves[1].contains("::") else { return nil }
        }
        func groups(_ part: String) -> [UInt8]? {
            if part.isEmpty { return [] }
            var bytes: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), let v4 = parseV4(piece) {
                    bytes += v4
                    continue
                }
                guard !piece.isEmpty, piece.utf8.count <= 4, let value = UInt16(piece, radix: 16) else { return nil }
                bytes += [UInt8(value >> 8), UInt8(value & 0xff)]
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + Array(repeating: 0, count: 16 - head.count - tail.count) + tail
    }
}

/// A network in CIDR form (`192.168.1.0/24`, `fd00::/8`, or one address): the config's
/// `forward.allowNetworks`.
public struct NetworkRange: Hashable, Sendable, CustomStringConvertible {
    public var address: IPAddress
    /// Prefix length counted over the 16-byte form (an IPv4 /24 is 96 + 24).
    public var prefixLength: Int
    public let description: String

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        let maxLength = address.isV4 ? 32 : 128
        var length = maxLength
        if parts.count == 2 {
            guard let value = Int(parts[1]), (0...maxLength).contains(value) else { return nil }
            length = value
        }
        self.address = address
        self.prefixLength = length + (address.isV4 ? 96 : 0)
        self.description = text
    }

    public func contains(_ other: IPAddress) -> Bool {
        guard other.isV4 == address.isV4 else { return false }
        var remaining = prefixLength
        for index in 0..<16 where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xff << (8 - bits))
            if address.bytes[index] & mask != other.bytes[index] & mask { return false }
            remaining -= bits
        }
        return true
    }

    public static let loopback = [NetworkRange("127.0.0.0/8")!, NetworkRange("::1/128")!]
}
