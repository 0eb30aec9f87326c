/// Follows the header lines curl hands to CURLOPT_HEADERFUNCTION. curl passes every header block
/// it sees: 1xx interim responses, each redirect it follows, the final response and trailers.
/// The parser keeps the current block and says when a block ends.
struct ResponseHeadParser {
    enum Event: Equatable {
        case none
        /// A blank line ended a header block whose status is `status`.
        case endOfBlock(status: Int)
    }

    private(set) var status = 0
    private(set) var httpVersion = ""
    private(set) var headers = UpstreamHeaders()

    mutating func consume(_ line: UnsafeRawBufferPointer) -> Event {
        var end = line.count
        while end > 0, line[end - 1] == UInt8(ascii: "\n") || line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let content = UnsafeRawBufferPointer(rebasing: line[0..<end])
        if content.isEmpty {
            return .endOfBlock(status: status)
        }
        if content.starts(with: "HTTP/".utf8) {
            parseStatusLine(content)
            return .none
        }
        if content[0] == UInt8(ascii: " ") || content[0] == UInt8(ascii: "\t") {
            // Obsolete line folding: continuation of the previous value.
            headers.continueLastValue(Self.trimmed(content, from: 0, to: content.count))
            return .none
        }
        guard let colon = content.firstIndex(of: UInt8(ascii: ":")) else { return .none }
        headers.append(name: Self.trimmed(content, from: 0, to: colon), value: Self.trimmed(content, from: colon + 1, to: content.count))
        return .none
    }

    /// The bytes in `start..<end` without surrounding spaces and tabs.
    private static func trimmed(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> UnsafeRawBufferPointer {
        var start = start, end = end
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    /// "HTTP/1.1 200 OK", "HTTP/2 200 ".
    private mutating func parseStatusLine(_ content: UnsafeRawBufferPointer) {
        headers = UpstreamHeaders(reserving: 512, fields: 16)
        status = 0
        let prefix = "HTTP/".utf8.count
        let versionEnd = content[prefix...].firstIndex(of: UInt8(ascii: " ")) ?? content.count
        httpVersion = String(decoding: UnsafeRawBufferPointer(rebasing: content[prefix..<versionEnd]), as: UTF8.self)
        var index = versionEnd
        while index < content.count, content[index] == UInt8(ascii: " ") { index += 1 }
        var code = 0, digits = 0
        while index < content.count, digits < 3, content[index] >= UInt8(ascii: "0"), content[index] <= UInt8(ascii: "9") {
            code = code * 10 + Int(content[index] - UInt8(ascii: "0"))
            digits += 1
            index += 1
        }
        let endsThere = index == content.count || content[index] == UInt8(ascii: " ")
        if digits == 3, endsThere { status = code }
    }

    func header(_ name: String) -> String? {
        headers.first(name)
    }
}
