import NIOConcurrencyHelpers

/// Backpressure towards a slow client: the request task waits here while the channel's outbound
/// buffer is above its high watermark, so a body is never read from the origin faster than the
/// client takes it.
final class WritabilityGate: Sendable {
    private struct State {
        var writable = true
        var closed = false
        var waiters: [CheckedContinuation<Void, Error>] = []
    }

    struct Closed: Error {}

    private let state = NIOLockedValueBox(State())

    /// Returns once the channel is writable again; throws when the connection closed meanwhile.
    func waitUntilWritable() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            let outcome = state.withLockedValue { state -> Result<Void, Error>? in
                if state.closed { return .failure(Closed()) }
                if state.writable { return .success(()) }
                state.waiters.append(continuation)
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    func set(_ writable: Bool) {
        let released = state.withLockedValue { state -> [CheckedContinuation<Void, Error>] in
            state.writable = writable
            guard writable else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in released { waiter.resume() }
    }

    func close() {
        let released = state.withLockedValue { state -> [CheckedContinuation<Void, Error>] in
            state.closed = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in released { waiter.resume(throwing: Closed()) }
    }
}
