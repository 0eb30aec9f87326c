import NIOCore

/// The response body as an AsyncSequence of chunks. Backpressure: while more than the high
/// watermark is buffered the curl transfer is paused (CURL_WRITEFUNC_PAUSE); taking the buffered
/// bytes resumes it. Cancelling the consuming task, calling `cancel()`, or dropping the body
/// (the last reference to it) stops the transfer at once.
public final class UpstreamBody: AsyncSequence, Sendable {
    public typealias Element = ByteBuffer
    public typealias Failure = UpstreamError

    let transfer: Transfer

    init(transfer: Transfer) {
        self.transfer = transfer
    }

    deinit {
        transfer.cancel()
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Element = ByteBuffer
        public typealias Failure = UpstreamError

        // Holds the body so that it is not dropped (which cancels) while being iterated.
        let body: UpstreamBody

        public mutating func next() async throws(UpstreamError) -> ByteBuffer? {
            try await body.transfer.nextChunk().get()
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(UpstreamError) -> ByteBuffer? {
            try await body.transfer.nextChunk().get()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(body: self)
    }

    public func cancel() {
        transfer.cancel()
    }

    /// True when the origin has sent everything and every chunk has been taken: the chunk the
    /// consumer holds is the last one.
    public var isDrained: Bool { transfer.isDrained }

    /// The whole body, for playlists. Throws `.tooLarge` (and cancels the transfer) past `maxBytes`.
    public func collect(upTo maxBytes: Int) async throws(UpstreamError) -> [UInt8] {
        Array(try await collectBuffer(upTo: maxBytes).readableBytesView)
    }

    /// The whole body in one buffer: the chunk it came in, without a copy, when it came in one (a
    /// playlist usually does). Throws `.tooLarge` (and cancels the transfer) past `maxBytes`.
    public func collectBuffer(upTo maxBytes: Int) async throws(UpstreamError) -> ByteBuffer {
        var iterator = makeAsyncIterator()
        guard var collected = try await iterator.next() else { return ByteBuffer() }
        while true {
            guard collected.readableBytes <= maxBytes else {
                cancel()
                throw .tooLarge(url: transfer.url, limit: maxBytes)
            }
            guard var chunk = try await iterator.next() else { return collected }
            collected.writeBuffer(&chunk)
        }
    }

    /// curl's total time for the transfer in seconds, once it has ended (nil before, or if it failed).
    public var totalSeconds: Double? { transfer.totalSeconds }

    /// Bytes received from the origin and not yet taken by the consumer (tests, metrics).
    var bufferedByteCount: Int { transfer.bufferedByteCount }
    /// How many times the transfer was paused because the consumer was behind.
    var pauseCount: Int { transfer.pauseCount }
}
