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
    private(set) var headers: [(name: String, value: String)] = []

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
            if !headers.isEmpty {
                let extra = String(decoding: content, as: UTF8.self).trimmingSpaces
                headers[headers.count - 1].value += " " + extra
            }
            return .none
        }
        guard let colon = content.firstIndex(of: UInt8(ascii: ":")) else { return .none }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: content[0..<colon]), as: UTF8.self)
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: content[(colon + 1)...]), as: UTF8.self)
        headers.append((name: name.trimmingSpaces, value: value.trimmingSpaces))
        return .none
    }

    /// "HTTP/1.1 200 OK", "HTTP/2 200 ".
    private mutating func parseStatusLine(_ content: UnsafeRawBufferPointer) {
        headers = []
        status = 0
        let text = String(decoding: content, as: UTF8.self)
        let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        httpVersion = parts.first.map { String($0.dropFirst("HTTP/".count)) } ?? ""
        if parts.count > 1, let code = Int(parts[1]) { status = code }
    }

    func header(_ name: String) -> String? {
        headers.first { $0.name.asciiCaseInsensitiveEquals(name) }?.value
    }
}
