import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 exchange with the control API over a real loopback socket: exact bytes out (method,
/// headers, body), the whole answer back (`Connection: close`, so the body ends with the connection).
struct APIResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object (nil when it is not one).
    var object: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }

    /// `error` of a JSON error body.
    var error: String? { object?["error"] as? String }

    /// `problems` of a JSON error body, each as `file: path: message` (the `hlschaos validate` line).
    var problemLines: [String] {
        ((object?["problems"] as? [[String: Any]]) ?? []).map {
            "\($0["file"] as? String ?? "?"): \($0["path"] as? String ?? "?"): \($0["message"] as? String ?? "?")"
        }
    }
}

struct APIClient: Sendable {
    let port: Int
    var token: String?

    func get(_ path: String, headers: [(String, String)] = []) async throws -> APIResponse {
        try await send("GET", path, headers: headers)
    }

    func delete(_ path: String) async throws -> APIResponse {
        try await send("DELETE", path)
    }

    /// Sends `json` (text) as `application/json` unless `contentType` says otherwise.
    func send(_ method: String, _ path: String, json: String, contentType: String? = "application/json") async throws -> APIResponse {
        var headers: [(String, String)] = []
        if let contentType { headers.append(("Content-Type", contentType)) }
        return try await send(method, path, headers: headers, body: Array(json.utf8))
    }

    func send(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil) async throws -> APIResponse {
        var headers = headers
        if let token, !headers.contains(where: { $0.0.lowercased() == "authorization" }) {
            headers.append(("Authorization", "Bearer \(token)"))
        }
        let port = self.port
        let request = Self.requestBytes(method, path, headers: headers, body: body)
        return try await RawHTTP.run {
            let socket = try LoopbackSocket(port: port, readTimeout: 30)
            defer { socket.close() }
            socket.send(request)
            return try Self.parse(socket.readToEnd())
        }
    }

    static func requestBytes(_ method: String, _ path: String, headers: [(String, String)], body: [UInt8]?) -> [UInt8] {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.count)\r\n" }
        return Array((text + "\r\n").utf8) + (body ?? [])
    }

    struct MalformedResponse: Error { var text: String }

    static func parse(_ bytes: [UInt8]) throws -> APIResponse {
        guard let end = find([13, 10, 13, 10], in: bytes[...]) else { throw MalformedResponse(text: String(decoding: bytes, as: UTF8.self)) }
        let (status, headers) = try parseHead(bytes[..<end])
        var body = Array(bytes[(end + 4)...])
        let response = APIResponse(status: status, headers: headers, body: [])
        if response.header("transfer-encoding")?.lowercased().contains("chunked") == true { body = dechunk(body) }
        return APIResponse(status: status, headers: headers, body: body)
    }

    static func parseHead(_ head: ArraySlice<UInt8>) throws -> (Int, [(name: String, value: String)]) {
        var lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw MalformedResponse(text: String(decoding: head, as: UTF8.self)) }
        let headers: [(name: String, value: String)] = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return (status, headers)
    }

    static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var rest = bytes[...]
        while let lineEnd = find([13, 10], in: rest) {
            let sizeText = String(decoding: rest[rest.startIndex..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size > 0 else { break }
            let start = lineEnd + 2
            guard rest.endIndex >= start + size else { out += rest[start...]; break }
            out += rest[start..<(start + size)]
            rest = rest[min(start + size + 2, rest.endIndex)...]
        }
        return out
    }

    static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        while index <= haystack.endIndex - needle.count {
            if haystack[index] == needle[0], haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}

/// A blocking TCP socket to 127.0.0.1 (call it from `RawHTTP.run`, never on the cooperative pool).
final class LoopbackSocket: @unchecked Sendable {
    private let fd: Int32
    private var closed = false

    struct ConnectFailed: Error { var code: Int32 }

    init(port: Int, readTimeout: Double) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        setReadTimeout(readTimeout)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result != 0 {
            let code = errno
            Glibc.close(fd)
            closed = true
            throw ConnectFailed(code: code)
        }
    }

    deinit { close() }

    func setReadTimeout(_ seconds: Double) {
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            offset += sent
        }
    }

    enum Read {
        case data([UInt8])
        /// The peer closed (or reset) the connection.
        case ended
        /// Nothing came within the read timeout.
        case timedOut
    }

    func readSome() -> Read {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 { return .data(Array(chunk[..<count])) }
        if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return .timedOut }
        return .ended
    }

    /// Some bytes; empty at the end of the stream or when nothing came within the read timeout.
    func read() -> [UInt8] {
        if case .data(let bytes) = readSome() { return bytes }
        return []
    }

    func readToEnd() -> [UInt8] {
        var all: [UInt8] = []
        while case .data(let bytes) = readSome() { all += bytes }
        return all
    }
}

/// A client of `GET /api/events/stream`: reads the response head, then one event at a time.
final class EventStreamClient: @unchecked Sendable {
    struct Event: Sendable {
        var id: String?
        var data: String
        var object: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] }
    }

    let status: Int
    let headers: [(name: String, value: String)]
    private let socket: LoopbackSocket
    private var buffer: [UInt8]
    /// Comment lines seen so far (": heartbeat").
    private(set) var comments: [String] = []

    private init(socket: LoopbackSocket, status: Int, headers: [(name: String, value: String)], rest: [UInt8]) {
        self.socket = socket
        self.status = status
        self.headers = headers
        self.buffer = rest
    }

    static func open(port: Int, path: String, headers: [(String, String)] = []) async throws -> EventStreamClient {
        let request = APIClient.requestBytes("GET", path, headers: headers, body: nil)
        return try await RawHTTP.run {
            let socket = try LoopbackSocket(port: port, readTimeout: 1)
            socket.send(request)
            var bytes: [UInt8] = []
            let deadline = Date().addingTimeInterval(10)
            while APIClient.find([13, 10, 13, 10], in: bytes[...]) == nil, Date() < deadline { bytes += socket.read() }
            guard let end = APIClient.find([13, 10, 13, 10], in: bytes[...]) else {
                throw APIClient.MalformedResponse(text: String(decoding: bytes, as: UTF8.self))
            }
            let (status, headers) = try APIClient.parseHead(bytes[..<end])
            return EventStreamClient(socket: socket, status: status, headers: headers, rest: Array(bytes[(end + 4)...]))
        }
    }

    /// The next event, or nil when none came within `timeout` seconds (or the stream ended).
    func next(timeout: Double = 10) async throws -> Event? {
        try await RawHTTP.run { self.readEvent(timeout: timeout) }
    }

    /// Whether the server ended the stream within `timeout` seconds.
    func waitForEnd(timeout: Double) async throws -> Bool {
        try await RawHTTP.run {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if case .ended = self.socket.readSome() { return true }
            }
            return false
        }
    }

    func close() { socket.close() }

    /// Decoded chunked body text: chunk sizes are stripped as they come.
    private var text = ""

    private func readEvent(timeout: Double) -> Event? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            decodeChunks()
            if let event = takeEvent() { return event }
            guard Date() < deadline else { return nil }
            let chunk = socket.read()
            if chunk.isEmpty { continue }
            buffer += chunk
        }
    }

    /// Moves complete chunks of the chunked body from `buffer` to `text`.
    private func decodeChunks() {
        while let lineEnd = APIClient.find([13, 10], in: buffer[...]) {
            let sizeText = String(decoding: buffer[..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return }
            guard buffer.count >= lineEnd + 2 + size + 2 else { return }
            text += String(decoding: buffer[(lineEnd + 2)..<(lineEnd + 2 + size)], as: UTF8.self)
            buffer.removeFirst(lineEnd + 2 + size + 2)
        }
    }

    /// The first complete event of `text` (comments are collected on the way).
    private func takeEvent() -> Event? {
        while let range = text.range(of: "\n\n") {
            let block = String(text[..<range.lowerBound])
            text.removeSubrange(..<range.upperBound)
            var id: String?
            var data: [String] = []
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") {
                    comments.append(line.dropFirst().trimmingCharacters(in: .whitespaces))
                } else if line.hasPrefix("id:") {
                    id = line.dropFirst(3).trimmingCharacters(in: .whitespaces)
                } else if line.hasPrefix("data:") {
                    data.append(String(line.dropFirst(5).drop { $0 == " " }))
                }
            }
            if !data.isEmpty { return Event(id: id, data: data.joined(separator: "\n")) }
        }
        return nil
    }
}
