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
struct ResponseHead {
    var status: HTTPResponseStatus
    var version: HTTPVersion
    /// The status line, the fields and the empty line, as HTTP/1 sends them.
    var bytes: ByteBuffer
    /// The body goes in chunks (HTTP/1.1 without a `Content-Length`); false when no body follows
    /// (a HEAD's answer, a 204, a 304).
    var chunked: Bool

    /// The head as NIO's HTTP types have it (an HTTP/2 stream, a test): the fields read back.
    var httpHead: HTTPResponseHead {
        var headers = HTTPHeaders()
        bytes.withUnsafeReadableBytes { bytes in
            guard let lineEnd = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return }  // past the status line
            ResponseFields.forEachField(in: UnsafeRawBufferPointer(rebasing: bytes[(lineEnd + 1)...])) { name, value in
                headers.add(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
                return true
            }
        }
        return HTTPResponseHead(version: version, status: status, headers: headers)
    }
}
