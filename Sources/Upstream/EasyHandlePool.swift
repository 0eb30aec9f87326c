import CurlShim
import NIOConcurrencyHelpers

/// Idle curl easy handles, reset and ready for the next transfer. A fresh handle costs an
/// allocation of curl's state and of its receive buffer (256 KB here) on first use, and glibc
/// hands those pages back to the kernel when they are freed, so a new handle per request paid a
/// page fault for every 4 KB it received. A reused handle keeps its buffer (curl_easy_reset
/// clears options, not the buffer).
final class EasyHandlePool: Sendable {
    /// Idle handles are the pool's alone, taken and returned under the lock.
    private struct State: @unchecked Sendable {
        var idle: [UnsafeMutableRawPointer] = []
        var closed = false
        var created = 0
    }

    private let state = NIOLockedValueBox(State())
    /// Handles kept beyond this are freed: the pool holds at most this many receive buffers.
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// An idle handle, or a new one; nil only when curl cannot allocate one.
    func take() -> UnsafeMutableRawPointer? {
        let pooled = state.withLockedValue { state -> UnsafeMutableRawPointer? in
            if let handle = state.idle.popLast() { return handle }
            state.created += 1
            return nil
        }
        return pooled ?? curl_easy_init()
    }

    /// Handles made so far (tests: a reused handle is not counted again).
    var createdCount: Int { state.withLockedValue { $0.created } }

    /// Takes back a handle that is in no multi handle. Its options and per-request state are
    /// reset; it is freed instead when the pool is full or closed.
    func give(_ handle: UnsafeMutableRawPointer) {
        curl_easy_reset(handle)
        let kept = state.withLockedValue { state -> Bool in
            guard !state.closed, state.idle.count < capacity else { return false }
            state.idle.append(handle)
            return true
        }
        if !kept { curl_easy_cleanup(handle) }
    }

    /// Frees the idle handles; later `give`s free theirs at once.
    func close() {
        let idle = state.withLockedValue { state -> [UnsafeMutableRawPointer] in
            state.closed = true
            defer { state.idle = [] }
            return state.idle
        }
        for handle in idle { curl_easy_cleanup(handle) }
    }
}
