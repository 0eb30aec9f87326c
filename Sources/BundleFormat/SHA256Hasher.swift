import Crypto

/// SHA-256 over bytes that arrive in pieces (swift-crypto), as lowercase hex: the name a body gets
/// in a bundle, the same `sha256sum` prints.
public final class SHA256Hasher {
    private var hash = SHA256()

    public init() {}

    public func update(_ bytes: UnsafeRawBufferPointer) {
        hash.update(bufferPointer: bytes)
    }

    public func update(_ bytes: some Sequence<UInt8>) {
        if let done = bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) { return done }
        Array(bytes).withUnsafeBytes { update($0) }
    }

    /// The digest in hex; call once.
    public func finish() -> String {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(SHA256.byteCount * 2)
        for byte in hash.finalize() {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func hex(of bytes: some Sequence<UInt8>) -> String {
        let hasher = SHA256Hasher()
        hasher.update(bytes)
        return hasher.finish()
    }
}
