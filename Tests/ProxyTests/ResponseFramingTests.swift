import Foundation
import Testing
import TestSupport

/// How a client finds the end of each response the proxy passes on (`ClientChannel.frame`; NIO's
/// encoder does not frame): its length, chunks when the origin sent none on HTTP/1.1, the close
/// on HTTP/1.0, nothing at all after a 204 or 304. Each case sends a second request on the same
/// connection: a response framed wrong leaves bytes that the next one would be read from.
@Suite struct ResponseFramingTests {
    private static let chunkedHead = "HTTP/1.1 200 OK\r\nContent-Type: video/mp2t\r\nTransfer-Encoding: chunked\r\n\r\n"

    /// The origin's body in two chunks, with no length.
    private static func chunkedOrigin(_ body: [UInt8]) -> [UInt8] {
        let half = body.count / 2
        var bytes = Array(chunkedHead.utf8)
        for piece in [body[..<half], body[half...]] {
            bytes += Array("\(String(piece.count, radix: 16))\r\n".utf8) + piece + Array("\r\n".utf8)
        }
        return bytes + Array("0\r\n\r\n".utf8)
    }

    @Test func aBodyWithoutLengthGoesOutInChunksAndTheConnectionStaysInStep() async throws {
        let body = patternBytes(offset: 3, count: 70_001)
        try await TestOrigin.with { origin in
            origin.route("/chunked.ts", .raw(Self.chunkedOrigin(body)))
            origin.route("/next.ts", .bytes(body: [9, 9, 9]))
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let responses = try await RawHTTP.run {
                    let connection = try RawHTTPConnection(port: proxy.port, readTimeout: 10)
                    defer { connection.close() }
                    return [try connection.request("GET", "/chunked.ts"), try connection.request("GET", "/next.ts")]
                }
                #expect(responses[0].status == 200)
                #expect(responses[0].header("transfer-encoding") == "chunked")
                #expect(responses[0].header("content-length") == nil)
                #expect(responses[0].body == body)
                #expect(responses[1].status == 200 && responses[1].body == [9, 9, 9])
            }
        }
    }

    @Test func aHEADSaysWhatTheGETWouldAndSendsNoBody() async throws {
        try await TestOrigin.with { origin in
            origin.route("/chunked.ts", .raw(Self.chunkedOrigin(patternBytes(offset: 0, count: 1000))))
            origin.route("/sized.ts", .bytes(body: patternBytes(offset: 0, count: 1234)))
            origin.route("/next.ts", .bytes(body: [7]))
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let responses = try await RawHTTP.run {
                    let connection = try RawHTTPConnection(port: proxy.port, readTimeout: 10)
                    defer { connection.close() }
                    return [
                        try connection.request("HEAD", "/chunked.ts"), try connection.request("HEAD", "/sized.ts"),
                        try connection.request("GET", "/next.ts"),
                    ]
                }
                #expect(responses[0].status == 200 && responses[0].header("transfer-encoding") == "chunked")
                #expect(responses[1].status == 200 && responses[1].header("content-length") == "1234")
                #expect(responses[2].status == 200 && responses[2].body == [7], "the HEADs left no bytes on the connection")
            }
        }
    }

    @Test(arguments: [204, 304])
    func aBodilessStatusCarriesNoLengthAndNoBody(status: Int) async throws {
        try await TestOrigin.with { origin in
            // A length that describes the resource, not this answer (RFC 9110 §8.6): not passed on.
            origin.route("/empty.ts", .raw(Array("HTTP/1.1 \(status) Whatever\r\nContent-Length: 100\r\nETag: \"e\"\r\n\r\n".utf8)))
            origin.route("/next.ts", .bytes(body: [5, 5]))
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let responses = try await RawHTTP.run {
                    let connection = try RawHTTPConnection(port: proxy.port, readTimeout: 10)
                    defer { connection.close() }
                    return [try connection.request("GET", "/empty.ts"), try connection.request("GET", "/next.ts")]
                }
                #expect(responses[0].status == status)
                #expect(responses[0].header("content-length") == nil && responses[0].header("transfer-encoding") == nil)
                #expect(responses[0].header("etag") == "\"e\"")
                #expect(responses[1].status == 200 && responses[1].body == [5, 5])
            }
        }
    }

    @Test func anHTTP10ClientGetsTheBodyEndedByTheClose() async throws {
        let body = patternBytes(offset: 1, count: 5000)
        try await TestOrigin.with { origin in
            origin.route("/chunked.ts", .raw(Self.chunkedOrigin(body)))
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let (bytes, ending) = try await RawHTTP.run {
                    let connection = try RawHTTPConnection(port: proxy.port, readTimeout: 10)
                    defer { connection.close() }
                    connection.sendRaw(Array("GET /chunked.ts HTTP/1.0\r\nHost: x\r\n\r\n".utf8))
                    return connection.readUntilClosed()
                }
                let headEnd = try #require(RawHTTPConnection.find(Array("\r\n\r\n".utf8), in: bytes)) + 4
                let head = String(decoding: bytes[..<headEnd], as: UTF8.self).lowercased()
                #expect(ending == .complete)
                #expect(head.hasPrefix("http/1.0 200"))
                #expect(!head.contains("transfer-encoding") && !head.contains("content-length"), "\(head)")
                #expect(Array(bytes[headEnd...]) == body)
            }
        }
    }
}
