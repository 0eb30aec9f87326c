import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A deliberately low-level HTTP/1.1 client for end-to-end tests: one blocking socket, exact bytes,
/// and it tells a clean end from a short read or a TCP reset — what a player would see.
public final class RawHTTPConnection: @unchecked Sendable {
    public struct Response: Sendable {
        public var status: Int
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]
        /// How the body ended.
        public var ending: Ending
        /// Seconds from sending the request to the end of the response head, and to the last byte.
        public var secondsToHead: Double
        public var secondsTotal: Double

        public enum Ending: Equatable, Sendable {
            case complete
            /// The connection closed (FIN) before Content-Length bytes arrived.
            case shortRead(expected: Int)
            /// The connection was reset (RST).
            case reset
            /// Nothing more arrived within the read timeout.
            case timedOut
        }

        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public enum Failure: Error, Equatable {
        case connect(Int32)
        /// Reset or closed before a complete response head.
        case resetBeforeHead
        case closedBeforeHead
        case timedOutBeforeHead
        case malformedHead(String)
    }

    private let fd: Int32
    private var buffer: [UInt8] = []
    public private(set) var isClosed = false

    /// `receiveBuffer` shrinks the socket's receive buffer (and so the window the peer may fill):
    /// a slow client whose data waits in the server's send buffer.
    public init(port: Int, host: String = "127.0.0.1", readTimeout: Double = 30, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        var timeout = timeval(tv_sec: Int(readTimeout), tv_usec: Int((readTimeout - Double(Int(readTimeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if result != 0 {
            let code = errno
            // Through `close()`, which marks it closed: a class whose init throws once every stored
            // property is set is deinitialised, and `deinit` used to close the number a second time,
            // by then perhaps another thread's new socket or pipe (a curl transfer that never saw its
            // answer; a child process that could not be spawned, EBADF).
            close()
            throw Failure.connect(code)
        }
    }

    deinit { if !isClosed { Glibc.close(fd) } }

    public func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }

    /// Sends a request and reads the whole response (blocking; call from `RawHTTP.run`).
    public func request(
        _ method: String = "GET", _ target: String, headers: [(String, String)] = [],
        readBody: Bool = true, maxBodyBytes: Int = 1 << 30
    ) throws -> Response {
        let start = Date()
        _ = Array(Self.requestText(method, target, headers).utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return try readResponse(method: method, start: start, readBody: readBody, maxBodyBytes: maxBodyBytes)
    }

    /// Sends exactly these bytes (a partial request, garbage, several requests at once).
    public func sendRaw(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Everything the peer sends until it closes (FIN or RST) or nothing arrives within the read
    /// timeout, and which of those ended it.
    public func readUntilClosed() -> (bytes: [UInt8], ending: Response.Ending) {
        while true {
            switch readMore() {
            case .data: continue
            case .closed: defer { buffer = [] }; return (buffer, .complete)
            case .reset: defer { buffer = [] }; return (buffer, .reset)
            case .timedOut: defer { buffer = [] }; return (buffer, .timedOut)
            }
        }
    }

    /// Reads what is there (up to `limit` bytes, waiting at most the read timeout) and returns how
    /// it went; the bytes are kept for `readUntilClosed`.
    public func readSome(limit: Int) -> (count: Int, ending: Response.Ending?) {
        var chunk = [UInt8](repeating: 0, count: limit)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer.append(contentsOf: chunk[..<count])
            return (count, nil)
        }
        if count == 0 { return (0, .complete) }
        return (0, errno == EAGAIN || errno == EWOULDBLOCK ? .timedOut : .reset)
    }

    /// The bytes read so far and not yet handed out (by `readSome`, or after a response's head).
    public func takeBuffered() -> [UInt8] {
        defer { buffer = [] }
        return buffer
    }

    /// Sends GET requests for all `targets` in one write (HTTP/1.1 pipelining), then reads the
    /// responses in order.
    public func pipeline(_ targets: [String]) throws -> [Response] {
        let start = Date()
        let text = targets.map { Self.requestText("GET", $0, []) }.joined()
        _ = Array(text.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return try targets.map { _ in try readResponse(method: "GET", start: start, readBody: true, maxBodyBytes: 1 << 30) }
    }

    private static func requestText(_ method: String, _ target: String, _ headers: [(String, String)]) -> String {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return text + "\r\n"
    }

    private func readResponse(method: String, start: Date, readBody: Bool, maxBodyBytes: Int) throws -> Response {
        let headEnd = try readUntilHeadEnd()
        let secondsToHead = Date().timeIntervalSince(start)
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = head.components(separatedBy: "\r\n")
        // Strict: a response must start at its status line. Bytes left over from the one before
        // (a body after a 204, say) make the next head malformed instead of being skipped.
        let firstLine = lines.removeFirst()
        let statusLine = firstLine.split(separator: " ")
        guard firstLine.hasPrefix("HTTP/1."), statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure.malformedHead(head) }
        let fields: [(name: String, value: String)] = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = Response(status: status, headers: fields, body: [], ending: .complete,
                                secondsToHead: secondsToHead, secondsTotal: secondsToHead)
        let noBody = method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status)
        if noBody || !readBody { return response }

        if let length = response.header("content-length").flatMap(Int.init) {
            let wanted = min(length, maxBodyBytes)
            let ending = fill(upTo: wanted)
            response.body = Array(buffer.prefix(wanted))
            buffer.removeFirst(min(wanted, buffer.count))
            response.ending = ending == .complete ? .complete : (ending == .shortRead(expected: 0) ? .shortRead(expected: length) : ending)
        } else if response.header("transfer-encoding")?.lowercased().contains("chunked") == true {
            response.ending = readChunked(into: &response.body)
        } else {
            response.ending = readToClose(into: &response.body)
        }
        response.secondsTotal = Date().timeIntervalSince(start)
        return response
    }

    private enum ReadResult { case data, closed, reset, timedOut }

    private func readMore() -> ReadResult {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer.append(contentsOf: chunk[..<count])
            return .data
        }
        if count == 0 { return .closed }
        switch errno {
        case ECONNRESET: return .reset
        case EAGAIN, EWOULDBLOCK: return .timedOut
        default: return .reset
        }
    }

    private func readUntilHeadEnd() throws -> Int {
        while true {
            if let end = Self.find([13, 10, 13, 10], in: buffer) { return end }
            switch readMore() {
            case .data: continue
            case .closed: throw Failure.closedBeforeHead
            case .reset: throw Failure.resetBeforeHead
            case .timedOut: throw Failure.timedOutBeforeHead
            }
        }
    }

    private func fill(upTo count: Int) -> Response.Ending {
        while buffer.count < count {
            switch readMore() {
            case .data: continue
            case .closed: return .shortRead(expected: 0)
            case .reset: return .reset
            case .timedOut: return .timedOut
            }
        }
        return .complete
    }

    private func readChunked(into body: inout [UInt8]) -> Response.Ending {
        while true {
            while Self.find([13, 10], in: buffer) == nil {
                let result = readMore()
                if result != .data { return result == .reset ? .reset : (result == .timedOut ? .timedOut : .shortRead(expected: -1)) }
            }
            let lineEnd = Self.find([13, 10], in: buffer)!
            let sizeText = String(decoding: buffer[..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return .shortRead(expected: -1) }
            buffer.removeFirst(lineEnd + 2)
            let ending = fill(upTo: size + 2)
            if ending != .complete { body.append(contentsOf: buffer.prefix(size)); return ending == .shortRead(expected: 0) ? .shortRead(expected: -1) : ending }
            body.append(contentsOf: buffer.prefix(size))
            buffer.removeFirst(size + 2)
            if size == 0 { return .complete }
        }
    }

    private func readToClose(into body: inout [UInt8]) -> Response.Ending {
        while true {
            switch readMore() {
            case .data: continue
            case .closed:
                body = buffer
                buffer = []
                return .complete
            case .reset: body = buffer; return .reset
            case .timedOut: body = buffer; return .timedOut
            }
        }
    }

    public static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var i = 0
        while i <= haystack.count - needle.count {
            if haystack[i] == needle[0] && haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}

/// Runs blocking socket work on its own thread so the test never blocks Swift's cooperative pool
/// (which the proxy under test needs).
public enum RawHTTP {
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// One request on a fresh connection.
    public static func get(
        port: Int, _ target: String, method: String = "GET", headers: [(String, String)] = [], readTimeout: Double = 30
    ) async throws -> RawHTTPConnection.Response {
        try await run {
            let connection = try RawHTTPConnection(port: port, readTimeout: readTimeout)
            defer { connection.close() }
            return try connection.request(method, target, headers: headers)
        }
    }
}
