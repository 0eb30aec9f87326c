import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a client connection is doing, as far as the client-side timeouts and the head-size limit
/// care. Pure: the handler feeds it bytes, request starts and ends, and the time; it says when the
/// connection must go and why. Unit-tested without a socket.
struct RequestHeadWatch {
    struct Limits: Equatable {
        var requestHeadTimeout: TimeAmount
        var keepAliveTimeout: TimeAmount
        var maxHeadBytes: Int
    }

    enum State: Equatable {
        /// Between requests (or before the first): no byte of a new request yet.
        case idle(since: NIODeadline)
        /// Part of a request head has arrived; `newlines` tracks the end-of-head blank line.
        case readingHead(since: NIODeadline, bytes: Int, newlines: Int)
        /// The head is complete as bytes; the request has not started yet (the decoder has it).
        case headComplete(since: NIODeadline)
        /// A request is being answered: no client-side timeout applies (a `hang` fault may last).
        case busy
    }

    enum Verdict: Equatable {
        case fine
        case headTooLarge
    }

    enum Expiry: Equatable {
        case keepAliveIdle
        case requestHead
    }

    let limits: Limits
    private(set) var state: State

    init(limits: Limits, now: NIODeadline) {
        self.limits = limits
        self.state = .idle(since: now)
    }

    /// Bytes read from the client.
    mutating func received(_ bytes: ByteBuffer, now: NIODeadline) -> Verdict {
        var since = now, count = 0, newlines = 0
        switch state {
        case .busy, .headComplete: return .fine  // pipelined bytes: bounded by the request queue
        case .idle: break
        case .readingHead(let start, let seen, let state):
            since = start
            count = seen
            newlines = state
        }
        var end: Int?
        // The head ends with an empty line: LF, optional CR, LF. memchr jumps from LF to LF.
        bytes.withUnsafeReadableBytes { raw in
            guard let base = raw.baseAddress else { return }
            let lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
            var index = 0
            while index < raw.count {
                if newlines > 0 {
                    let byte = raw[index]
                    if byte == lf { end = index + 1; return }
                    if byte == cr && newlines == 1 { newlines = 2; index += 1; continue }
                    newlines = 0
                }
                guard let found = memchr(base + index, Int32(lf), raw.count - index) else { return }
                newlines = 1
                index = base.distance(to: UnsafeRawPointer(found)) + 1
            }
        }
        if let end {
            guard count + end <= limits.maxHeadBytes else { return .headTooLarge }
            state = .headComplete(since: since)
            return .fine
        }
        count += bytes.readableBytes
        guard count <= limits.maxHeadBytes else { return .headTooLarge }
        state = .readingHead(since: since, bytes: count, newlines: newlines)
        return .fine
    }

    mutating func requestStarted() {
        state = .busy
    }

    mutating func responseFinished(now: NIODeadline) {
        state = .idle(since: now)
    }

    /// When the current state times out; nil while a request is being answered.
    var deadline: NIODeadline? {
        switch state {
        case .idle(let since): since + limits.keepAliveTimeout
        case .readingHead(let since, _, _), .headComplete(let since): since + limits.requestHeadTimeout
        case .busy: nil
        }
    }

    /// Whether the connection must close at `now`, and why.
    func expired(now: NIODeadline) -> Expiry? {
        guard let deadline, deadline <= now else { return nil }
        if case .idle = state { return .keepAliveIdle }
        return .requestHead
    }
}
