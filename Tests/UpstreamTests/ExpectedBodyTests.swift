import NIOCore
import Testing
import TestSupport
@testable import Upstream

/// `UpstreamRequest.expectedBody`: a body equal to the expectation comes back as that very buffer;
/// any other body comes back byte for byte, whether it differs at its first byte, in its middle, at
/// its last, or is shorter or longer.
@Suite struct ExpectedBodyTests {
    static let size = 700_000

    /// The origin's body, cut into 50,000-byte pieces 5 ms apart: curl hands it over in many calls.
    static func withPattern(_ body: (TestOrigin, UpstreamClient, String) async throws -> Void) async throws {
        try await withOrigin { origin, client in
            origin.route("/p.m3u8", .generated(size: size, chunk: 50_000, delayBetweenChunks: .milliseconds(5)))
            try await body(origin, client, origin.baseURL + "/p.m3u8")
        }
    }

    static func fetch(_ client: UpstreamClient, _ url: String, expecting expected: ByteBuffer?) async throws -> ByteBuffer {
        let response = try await client.fetch(UpstreamRequest(url: url, expectedBody: expected))
        return try await response.body.collectBuffer(upTo: 1 << 21)
    }

    static func storage(_ buffer: ByteBuffer) -> UnsafeRawPointer? {
        buffer.withUnsafeReadableBytes { UnsafeRawPointer($0.baseAddress) }
    }

    @Test func aBodyEqualToTheExpectationIsThatBuffer() async throws {
        try await Self.withPattern { _, client, url in
            let expected = ByteBuffer(bytes: patternBytes(offset: 0, count: Self.size))
            let body = try await Self.fetch(client, url, expecting: expected)
            #expect(body == expected)
            #expect(Self.storage(body) == Self.storage(expected))
        }
    }

    @Test(arguments: [0, 1, 49_999, 50_000, 350_123, size - 1])
    func aBodyThatDiffersAtOneByteIsTheOrigins(at offset: Int) async throws {
        try await Self.withPattern { _, client, url in
            var bytes = patternBytes(offset: 0, count: Self.size)
            bytes[offset] &+= 1
            let body = try await Self.fetch(client, url, expecting: ByteBuffer(bytes: bytes))
            #expect(body.readableBytes == Self.size)
            #expect(Array(body.readableBytesView) == patternBytes(offset: 0, count: Self.size))
        }
    }

    @Test(arguments: [0, 1, 50_000, size - 1, size + 1, 2 * size])
    func aBodyOfAnotherLengthIsTheOrigins(expectedLength: Int) async throws {
        try await Self.withPattern { _, client, url in
            // The pattern, cut short or carried on past the origin's end.
            let expected = ByteBuffer(bytes: patternBytes(offset: 0, count: expectedLength))
            let body = try await Self.fetch(client, url, expecting: expected)
            #expect(Array(body.readableBytesView) == patternBytes(offset: 0, count: Self.size))
        }
    }

    /// The expectation is compared from its reader index: a slice of a larger buffer works.
    @Test func anExpectationThatIsASliceIsComparedFromItsStart() async throws {
        try await Self.withPattern { _, client, url in
            var larger = ByteBuffer(bytes: [9, 9, 9])
            larger.writeBytes(patternBytes(offset: 0, count: Self.size))
            larger.moveReaderIndex(forwardBy: 3)
            let body = try await Self.fetch(client, url, expecting: larger)
            #expect(body == larger)
        }
    }

    /// A failed status's body is compared too, and is still the origin's bytes.
    @Test func anErrorBodyIsTheOriginsEvenWithAnExpectation() async throws {
        try await withOrigin { origin, client in
            let response = try await client.fetch(
                UpstreamRequest(url: origin.baseURL + "/missing.m3u8", expectedBody: ByteBuffer(string: "#EXTM3U\n")))
            #expect(response.status == 404)
            #expect(String(buffer: try await response.body.collectBuffer(upTo: 4096)) == "no route for /missing.m3u8\n")
        }
    }
}
