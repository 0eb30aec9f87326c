import Testing
@testable import Chaos

@Suite struct CorruptionTests {
    let body: [UInt8] = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }

    @Test func sameOffsetsTwice() {
        let first = Corruption(bytes: 32, seed: 7, bodyLength: body.count)
        let second = Corruption(bytes: 32, seed: 7, bodyLength: body.count)
        #expect(first.offsets == second.offsets)
        #expect(first.offsets.count == 32)
        #expect(first.offsets.allSatisfy { (0..<body.count).contains($0) })
        #expect(Corruption(bytes: 32, seed: 8, bodyLength: body.count).offsets != first.offsets)
    }

    @Test func chunkingDoesNotMatter() {
        let corruption = Corruption(bytes: 50, seed: 99, bodyLength: body.count)
        var whole = body
        corruption.damage(&whole, at: 0)
        var pieces: [UInt8] = []
        var offset = 0
        for size in [1, 7, 1000, 3, 4096, 10_000] where offset < body.count {
            var chunk = Array(body[offset..<min(body.count, offset + size)])
            corruption.damage(&chunk, at: offset)
            pieces += chunk
            offset += chunk.count
        }
        #expect(pieces == whole)
        let changed = zip(whole, body).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(changed == corruption.offsets)
    }

    @Test func rawBufferVariant() {
        let corruption = Corruption(bytes: 10, seed: 1, bodyLength: 100)
        var expected = Array(body.prefix(100))
        corruption.damage(&expected, at: 0)
        var raw = Array(body.prefix(100))
        raw.withUnsafeMutableBytes { corruption.damage($0, at: 0) }
        #expect(raw == expected)
    }

    @Test func moreBytesThanTheBody() {
        let corruption = Corruption(bytes: 500, seed: 1, bodyLength: 20)
        #expect(corruption.offsets == Array(0..<20))
        #expect(Corruption(bytes: 5, seed: 1, bodyLength: nil).offsets.allSatisfy { $0 < Corruption.assumedLength })
    }

    @Test func truncationLimits() {
        #expect(Truncation.fraction(0.5).byteLimit(contentLength: 1001) == 500)
        #expect(Truncation.fraction(0.5).byteLimit(contentLength: nil) == nil)
        #expect(Truncation.afterBytes(10).byteLimit(contentLength: 5) == 5)
        #expect(Truncation.afterBytes(10).byteLimit(contentLength: nil) == 10)
    }
}
