import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import Proxy

/// The response head written as bytes (`ResponseFields`, `HTTP1ResponseWriter`), held to what NIO's
/// own encoder writes for the same head and body.
@Suite struct ResponseFieldsTests {
    private static let fields: [(name: String, value: String)] = [
        ("Content-Type", "video/mp2t"), ("cache-control", "max-age=60, public"), ("X-Empty", ""), ("ETag", "\"a:b\""),
    ]

    @Test func fieldsKeepTheirOrderCaseAndValues() {
        var fields = ResponseFields(Self.fields)
        #expect(fields.list.map { "\($0.name)=\($0.value)" } == ["Content-Type=video/mp2t", "cache-control=max-age=60, public", "X-Empty=", "ETag=\"a:b\""])
        #expect(fields.first("content-type") == "video/mp2t")
        #expect(fields.first("etag") == "\"a:b\"", "a colon in a value is part of the value")
        #expect(fields.first("x-empty") == "")
        #expect(fields.first("content") == nil, "a prefix of a name is not the name")
        #expect(!fields.contains("content-length"))

        fields.add(name: "Cache-Control", value: "no-store")
        fields.remove("cache-control")
        #expect(fields.list.map(\.name) == ["Content-Type", "X-Empty", "ETag"], "every field of the name goes, the others keep their order")
        fields.replaceOrAdd(name: "content-type", value: "text/plain")
        #expect(fields.list.map { "\($0.name)=\($0.value)" } == ["X-Empty=", "ETag=\"a:b\"", "content-type=text/plain"])
        fields.remove("not-there")
        #expect(fields.list.count == 3)
    }

    /// The names the framing, CORS and the record ask about are answered from what `add` noted: the
    /// first of each, and still right after a field is removed or replaced.
    @Test func theNotedNamesAnswerAsAReadingWould() {
        let start: [(name: String, value: String)] = [
            ("Content-Length", "10"), ("X-A", "1"), ("content-length", "12"), ("Access-Control-Allow-Origin", "https://a.example"),
        ]
        var fields = ResponseFields(start)
        #expect(fields.first(.contentLength) == "10" && fields.first("content-length") == "10")
        #expect(fields.first(.accessControlAllowOrigin) == "https://a.example")
        #expect(!fields.contains(.transferEncoding) && !fields.contains(.contentType))
        fields.replaceOrAdd(name: "content-length", value: "99")
        #expect(fields.first(.contentLength) == "99")
        #expect(fields.list.map(\.name) == ["X-A", "Access-Control-Allow-Origin", "content-length"])
        fields.remove("access-control-allow-origin")
        #expect(!fields.contains(.accessControlAllowOrigin))
        fields.replaceOrAdd(name: "Content-Type", value: "text/plain")
        #expect(fields.first(.contentType) == "text/plain")
        for (known, name) in KnownHeaderName.recorded
            + [(.transferEncoding, "transfer-encoding"), (.connection, "connection"), (.accessControlAllowOrigin, "access-control-allow-origin")] {
            #expect(fields.first(known) == fields.first(name), "\(name)")
        }
    }

    @Test(arguments: [
        (200, HTTPVersion.http1_1), (206, .http1_1), (304, .http1_1), (404, .http1_0), (451, .http1_1), (503, .http1_0),
        (511, .http1_1), (599, .http1_1), (299, .http1_0),
    ])
    func theHeadIsTheBytesNIOsEncoderWrites(code: Int, version: HTTPVersion) throws {
        let status = HTTPResponseStatus(statusCode: code)
        let ours = ResponseFields(Self.fields).head(status: status, version: version, chunked: false).bytes
        let nios = try Self.nioBytes([
            .head(HTTPResponseHead(version: version, status: status, headers: HTTPHeaders(Self.fields.map { ($0.name, $0.value) }))),
        ])
        #expect(String(buffer: ours) == String(decoding: nios, as: UTF8.self))
    }

    @Test func aLongReasonPhraseStillMakesTheWholeHead() throws {
        let status = HTTPResponseStatus(statusCode: 299, reasonPhrase: String(repeating: "long ", count: 20))
        let ours = ResponseFields(Self.fields).head(status: status, version: .http1_1, chunked: false).bytes
        let nios = try Self.nioBytes([.head(HTTPResponseHead(version: .http1_1, status: status, headers: HTTPHeaders(Self.fields.map { ($0.name, $0.value) })))])
        #expect(String(buffer: ours) == String(decoding: nios, as: UTF8.self))
    }

    @Test(arguments: [(HTTPResponseStatus.notFound, HTTPVersion.http2), (.init(statusCode: 299, reasonPhrase: "Odd"), .http1_0), (.ok, .http1_1)])
    func theHeadReadsBackAsNIOsHeadForHTTP2(status: HTTPResponseStatus, version: HTTPVersion) {
        let head = ResponseFields(Self.fields).head(status: status, version: version, chunked: false)
        let read = head.httpHead
        #expect(read.status.code == status.code && read.version == version)
        #expect(read.headers.map { "\($0.name)=\($0.value)" } == Self.fields.map { "\($0.name)=\($0.value)" })
    }

    /// A part goes down the pipeline as `NIOAny`, which boxes (allocates for) a value over three
    /// words: every part written, the body's and the end's too, would cost an allocation.
    @Test func aPartFitsInNIOAnyWithoutABox() {
        #expect(MemoryLayout<ClientResponsePart>.size <= 3 * MemoryLayout<Int>.size)
    }

    /// Chunks, a body passed as it is, the end: the same bytes as NIO's encoder for the same parts.
    @Test(arguments: [true, false])
    func theWriterFramesTheBodyAsNIOsEncoderDoes(chunked: Bool) throws {
        var fields = ResponseFields([("content-type", "video/mp2t")])
        var headers: HTTPHeaders = ["content-type": "video/mp2t"]
        if chunked {
            fields.add(name: "transfer-encoding", value: "chunked")
            headers.add(name: "transfer-encoding", value: "chunked")
        } else {
            fields.add(name: "content-length", value: "1003")
            headers.add(name: "content-length", value: "1003")
        }
        let bodies = [ByteBuffer(repeating: 7, count: 1000), ByteBuffer(), ByteBuffer(bytes: [1, 2, 3])]
        let ours = try Self.writerBytes(
            [.head(fields.head(status: .ok, version: .http1_1, chunked: chunked))]
                + bodies.map { .body($0) } + [.end])
        let nios = try Self.nioBytes(
            [.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))] + bodies.map { .body(.byteBuffer($0)) } + [.end(nil)])
        #expect(ours == nios)
        #expect(chunked == String(decoding: ours, as: UTF8.self).hasSuffix("\r\n3\r\n\u{1}\u{2}\u{3}\r\n0\r\n\r\n"))
    }

    /// Two responses on one connection: the second's framing is its own.
    @Test func aResponseAfterAChunkedOneIsNotChunked() throws {
        var chunkedFields = ResponseFields()
        chunkedFields.add(name: "transfer-encoding", value: "chunked")
        var sized = ResponseFields()
        sized.add(name: "content-length", value: "2")
        let bytes = try Self.writerBytes([
            .head(chunkedFields.head(status: .ok, version: .http1_1, chunked: true)),
            .body(ByteBuffer(bytes: [1])), .end,
            .head(sized.head(status: .ok, version: .http1_1, chunked: false)),
            .body(ByteBuffer(bytes: [2, 3])), .end,
        ])
        #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("content-length: 2\r\n\r\n\u{2}\u{3}"))
    }

    private static func writerBytes(_ parts: [ClientResponsePart]) throws -> [UInt8] {
        let channel = EmbeddedChannel(handler: HTTP1ResponseWriter())
        for part in parts { try channel.writeOutbound(part) }
        return try drain(channel)
    }

    private static func nioBytes(_ parts: [HTTPServerResponsePart]) throws -> [UInt8] {
        var configuration = HTTPResponseEncoder.Configuration()
        configuration.automaticallySetFramingHeaders = false
        let channel = EmbeddedChannel(handler: HTTPResponseEncoder(configuration: configuration))
        for part in parts { try channel.writeOutbound(part) }
        return try drain(channel)
    }

    private static func drain(_ channel: EmbeddedChannel) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let data = try channel.readOutbound(as: IOData.self) {
            guard case .byteBuffer(let buffer) = data else { continue }
            bytes += buffer.readableBytesView
        }
        _ = try channel.finish()
        return bytes
    }
}
