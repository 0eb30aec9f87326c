/// libcurl's view of when things happened, in seconds from the start of the transfer (redirects
/// included); nil when curl did not report it (a reused connection has no connect time).
public struct UpstreamTimings: Sendable, Equatable {
    public var connect: Double?
    public var firstByte: Double?

    public init(connect: Double? = nil, firstByte: Double? = nil) {
        self.connect = connect
        self.firstByte = firstByte
    }
}

/// The head of the final response (after redirects and 1xx), and its streaming body.
public struct UpstreamResponse: Sendable {
    public let status: Int
    /// Headers of the final response, in order, names as received.
    public let headers: UpstreamHeaders
    public let effectiveURL: String
    /// "1.1", "2", "1.0".
    public let httpVersion: String
    /// True when curl reused a pooled connection for this request.
    public let reusedConnection: Bool
    /// libcurl's timings up to the head, in seconds from the start of the transfer.
    public let timings: UpstreamTimings
    public let body: UpstreamBody

    /// First value of the header named `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first(name)
    }
}

extension String {
    /// Equal ignoring ASCII case (header names, schemes); no lowercased copies.
    public func asciiCaseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && asciiCaseInsensitiveHasPrefix(other)
    }

    /// Starts with `prefix`, ignoring ASCII case ("If-None-Match" has the prefix "if-").
    ///
    /// Every header name of every request and response is compared through here: native strings
    /// are compared as the bytes they hold, without the iterators of two `UTF8View`s.
    public func asciiCaseInsensitiveHasPrefix(_ prefix: String) -> Bool {
        let contiguous = utf8.withContiguousStorageIfAvailable { text in
            prefix.utf8.withContiguousStorageIfAvailable { pattern in
                guard text.count >= pattern.count else { return false }
                for index in 0..<pattern.count where asciiLowercased(text[index]) != asciiLowercased(pattern[index]) {
                    return false
                }
                return true
            }
        }
        if let answer = contiguous ?? nil { return answer }
        return utf8.count >= prefix.utf8.count
            && zip(utf8, prefix.utf8).allSatisfy { asciiLowercased($0) == asciiLowercased($1) }
    }

    /// The string with ASCII letters lowercased, other bytes unchanged.
    @inlinable
    public init(asciiLowercasing bytes: some Collection<UInt8>) {
        self.init(unsafeUninitializedCapacity: bytes.count) { buffer in
            var count = 0
            for byte in bytes {
                buffer[count] = asciiLowercased(byte)
                count += 1
            }
            return count
        }
    }

    /// True when `needle` occurs in the string, ignoring ASCII case ("video/MP2T" contains "mp2t").
    public func asciiCaseInsensitiveContains(_ needle: String) -> Bool {
        var text = self, needle = needle
        return text.withUTF8 { text in
            needle.withUTF8 { pattern in
                guard pattern.count <= text.count else { return false }
                return (0...(text.count - pattern.count)).contains { start in
                    (0..<pattern.count).allSatisfy { asciiLowercased(text[start + $0]) == asciiLowercased(pattern[$0]) }
                }
            }
        }
    }
}

/// Equal ignoring ASCII case, as bytes (a header name as curl handed it over, against a name).
@inlinable
public func asciiCaseInsensitiveEquals(_ bytes: some Collection<UInt8>, _ other: some Collection<UInt8>) -> Bool {
    bytes.count == other.count && zip(bytes, other).allSatisfy { asciiLowercased($0) == asciiLowercased($1) }
}

/// An ASCII letter lowercased, any other byte unchanged.
@inlinable
@inline(__always)
public func asciiLowercased(_ byte: UInt8) -> UInt8 {
    byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
}
