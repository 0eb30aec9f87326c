import NIOCore

/// What a transfer's curl thread and its consumer share, as a value: the body bytes received and
/// not yet taken, whether curl is paused for them, the end of the body, cancellation, and who is
/// waiting for the head or for bytes. Each event returns what the caller must do outside the lock
/// (wake a waiter, pause or unpause curl, take the handle out of the multi).
///
/// `Transfer` keeps one under its lock; `TransferHandOverTests` drive it alone (the waiters are
/// generic, so that tests can stand in plain values for continuations).
struct TransferHandOver<HeadWaiter, BodyWaiter> {
    private(set) var headWaiter: HeadWaiter?
    private(set) var bodyWaiter: BodyWaiter?
    /// Received and not yet taken, in order; a callback's bytes join the last chunk when they fit.
    private(set) var chunks: [ByteBuffer] = []
    private(set) var bufferedBytes = 0
    private(set) var paused = false
    private(set) var pauseCount = 0
    private(set) var end: Result<Void, UpstreamError>?
    private(set) var cancelled = false
    var totalSeconds: Double?

    /// The smallest chunk a body's bytes are gathered in; curl's later pieces join it while it has room.
    static var minimumChunkCapacity: Int { 64 * 1024 }

    // MARK: the consumer

    /// The consumer waits for the head; false when the transfer was cancelled first.
    mutating func awaitHead(_ waiter: HeadWaiter) -> Bool {
        guard !cancelled else { return false }
        headWaiter = waiter
        return true
    }

    /// Parks `waiter` until bytes or the end arrive; false (not parked) when they already have.
    mutating func park(_ waiter: BodyWaiter) -> Bool {
        guard chunks.isEmpty, end == nil else { return false }
        bodyWaiter = waiter
        return true
    }

    /// The next chunk, or the end of the body, or nil when neither has arrived; with `unpause`,
    /// curl was paused for this chunk and may go on.
    mutating func take() -> (ready: Result<ByteBuffer?, UpstreamError>?, unpause: Bool) {
        if !chunks.isEmpty {
            let chunk = chunks.removeFirst()
            bufferedBytes -= chunk.readableBytes
            let unpause = paused && !cancelled
            paused = false
            return (.success(chunk), unpause)
        }
        return (end.map { $0.map { nil } }, false)
    }

    /// True once the origin has sent the whole body and the consumer has taken every byte.
    var isDrained: Bool {
        guard chunks.isEmpty, case .success = end else { return false }
        return true
    }

    /// What `cancel` leaves to do: resume these waiters with `.cancelled`, and take the handle out
    /// of the multi when the transfer was still running.
    struct Cancellation {
        var head: HeadWaiter?
        var body: BodyWaiter?
        var removeFromMulti: Bool
    }

    /// Stops the transfer; nil when it was cancelled already.
    mutating func cancel() -> Cancellation? {
        guard !cancelled else { return nil }
        cancelled = true
        chunks = []
        bufferedBytes = 0
        let running = end == nil
        if running { end = .failure(.cancelled) }
        defer { headWaiter = nil; bodyWaiter = nil }
        return Cancellation(head: headWaiter, body: bodyWaiter, removeFromMulti: running)
    }

    // MARK: the curl thread

    enum Received: Equatable {
        /// The consumer is gone: curl is told to abort the transfer.
        case abort
        /// The consumer is behind by the high watermark: curl pauses until it takes a chunk.
        case pause
        /// Kept; wake the consumer when it is waiting.
        case buffered(wake: Bool)
    }

    /// Bytes curl handed over.
    mutating func received(_ bytes: UnsafeRawBufferPointer, highWatermark: Int, allocator: ByteBufferAllocator) -> Received {
        if cancelled { return .abort }
        if bufferedBytes >= highWatermark {
            paused = true
            pauseCount += 1
            return .pause
        }
        bufferedBytes += bytes.count
        let last = chunks.count - 1
        if last >= 0, chunks[last].writableBytes >= bytes.count {
            chunks[last].writeBytes(bytes)
        } else {
            var chunk = allocator.buffer(capacity: max(bytes.count, Self.minimumChunkCapacity))
            chunk.writeBytes(bytes)
            chunks.append(chunk)
        }
        return .buffered(wake: bodyWaiter != nil)
    }

    /// A whole chunk for the consumer (an expected body that matched); true: wake the consumer.
    mutating func handOver(_ chunk: ByteBuffer) -> Bool {
        guard !cancelled else { return false }
        chunks.append(chunk)
        bufferedBytes += chunk.readableBytes
        return bodyWaiter != nil
    }

    /// The body ended (the first end stands: a cancel before it stays a cancel).
    mutating func finish(_ end: Result<Void, UpstreamError>) {
        if self.end == nil { self.end = end }
    }

    /// The head waiter, once: whoever settles the head resumes it.
    mutating func takeHeadWaiter() -> HeadWaiter? {
        defer { headWaiter = nil }
        return headWaiter
    }

    /// The body waiter when there is something for it (bytes or the end), once.
    mutating func takeBodyWaiterIfReady() -> BodyWaiter? {
        guard bodyWaiter != nil, !chunks.isEmpty || end != nil else { return nil }
        defer { bodyWaiter = nil }
        return bodyWaiter
    }
}
