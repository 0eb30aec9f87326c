import NIOCore
import NIOHTTP1

/// What `ClientChannel` writes to a client's channel: the head already in bytes (`ResponseFields`),
/// then the body, then the end. `HTTP1ResponseWriter` puts them on an HTTP/1 connection as they are;
/// `HTTP2ResponseParts` turns them into the parts NIO's HTTP/2 codec takes.
enum ClientResponsePart {
    case head(ResponseHead)
    case body(ByteBuffer)
    case end
}

/// A response head, framed (`ClientChannel.frame`) and written out whole.
///
/// Only its bytes and one flag: a part passes through the pipeline as `NIOAny`, which keeps a value
/// of up to three words inline and allocates a box for a larger one, for every part written (the
/// body's and the end's too, since an enum is as large as its largest case).
struct ResponseHead {
    /// The status line, the fields and the empty line, as HTTP/1 sends them.
    var bytes: ByteBuffer
    /// The body goes in chunks (HTTP/1.1 without a `Content-Length`); false when no body follows
    /// (a HEAD's answer, a 204, a 304).
    var chunked: Bool

    /// The head as NIO's HTTP types have it (an HTTP/2 stream, a test): the status line and the
    /// fields read back.
    var httpHead: HTTPResponseHead {
        var head = HTTPResponseHead(version: .http1_1, status: .ok)
        bytes.withUnsafeReadableBytes { bytes in
            guard let lineEnd = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return }
            // "HTTP/1.1 200 OK\r\n", as `ResponseFields.head` writes it.
            let line = Array(bytes[..<lineEnd])
            func digit(_ at: Int) -> Int? { at < line.count && (48...57).contains(line[at]) ? Int(line[at] - 48) : nil }
            if let major = digit(5), let minor = digit(7) { head.version = HTTPVersion(major: major, minor: minor) }
            if let hundreds = digit(9), let tens = digit(10), let ones = digit(11) {
                head.status = HTTPResponseStatus(statusCode: hundreds * 100 + tens * 10 + ones)
            }
            ResponseFields.forEachField(in: UnsafeRawBufferPointer(rebasing: bytes[(lineEnd + 1)...])) { name, value in
                head.headers.add(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
                return true
            }
        }
        return head
    }
}
