import NIOConcurrencyHelpers
import NIOCore
import Synchronization

/// Tracks open connections so a shutdown can close the idle ones and wait for the busy ones.
///
/// A connection's start and end are under the registry's lock; a request's start and end
/// (`markBusy`, `markIdle`) change only the connection's own flag and read the shutdown flag, with
/// no lock the event loops share, as they happen on every request.
final class ConnectionRegistry: Sendable {
    let limit: Int
    private let notice: LimitNotice
    private let shuttingDown = Atomic<Bool>(false)
    private let state = NIOLockedValueBox(State())

    init(limit: Int = .max, notice: LimitNotice) {
        self.limit = limit
        self.notice = notice
    }

    private struct State {
        var connections: [ObjectIdentifier: Registration] = [:]
        var emptyWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// One open connection, held by its handler.
    final class Registration: Sendable {
        fileprivate let channel: Channel
        fileprivate let busy = Atomic<Bool>(false)

        fileprivate init(channel: Channel) {
            self.channel = channel
        }

        /// A request is being answered on the connection (`markBusy` and `markIdle`).
        var isBusy: Bool { busy.load(ordering: .sequentiallyConsistent) }
    }

    /// The connection's registration, or nil when `limit` connections are open (the caller closes it).
    func register(_ channel: Channel) -> Registration? {
        let registered = state.withLockedValue { state -> Registration? in
            guard state.connections.count < limit else { return nil }
            let registration = Registration(channel: channel)
            state.connections[ObjectIdentifier(registration)] = registration
            return registration
        }
        guard let registered else {
            notice.hit { "refused \($0) client connection(s): \(limit) are open" }
            return nil
        }
        if shuttingDown.load(ordering: .sequentiallyConsistent) { channel.close(promise: nil) }
        return registered
    }

    var count: Int { state.withLockedValue { $0.connections.count } }
    var refusedCount: Int { notice.count }

    /// Closes every connection, busy or idle.
    func closeAll() {
        let all = state.withLockedValue { $0.connections.values.map(\.channel) }
        for channel in all { channel.close(promise: nil) }
    }

    func unregister(_ registration: Registration) {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            state.connections[ObjectIdentifier(registration)] = nil
            guard shuttingDown.load(ordering: .sequentiallyConsistent), state.connections.isEmpty else { return [] }
            defer { state.emptyWaiters = [] }
            return state.emptyWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once a shutdown has begun and every connection has closed.
    func waitUntilEmpty() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLockedValue { state -> Bool in
                if shuttingDown.load(ordering: .sequentiallyConsistent) && state.connections.isEmpty { return true }
                state.emptyWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// False when shutting down: the request is not started.
    ///
    /// The flag is set before the shutdown flag is read, and `beginShutdown` sets the shutdown flag
    /// before it reads the connections' flags: one of the two sees the other, so a connection is
    /// never both started and left out of the shutdown's closing.
    func markBusy(_ registration: Registration) -> Bool {
        guard !registration.busy.exchange(true, ordering: .sequentiallyConsistent) else { return false }
        guard !shuttingDown.load(ordering: .sequentiallyConsistent) else {
            registration.busy.store(false, ordering: .sequentiallyConsistent)
            return false
        }
        return true
    }

    /// False when shutting down: the connection closes after the response it just finished.
    func markIdle(_ registration: Registration) -> Bool {
        guard registration.busy.exchange(false, ordering: .sequentiallyConsistent) else { return false }
        return !shuttingDown.load(ordering: .sequentiallyConsistent)
    }

    func beginShutdown() {
        let idle = state.withLockedValue { state -> [Channel] in
            // Under the lock too, so that `unregister` and `waitUntilEmpty` see it with the table.
            shuttingDown.store(true, ordering: .sequentiallyConsistent)
            return state.connections.values.filter { !$0.isBusy }.map(\.channel)
        }
        for channel in idle { channel.close(promise: nil) }
    }
}
