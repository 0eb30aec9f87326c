import CurlShim
import Foundation
import Synchronization

/// The one curl multi handle and the thread that drives it with curl_multi_poll. Every touch of
/// an easy handle after submission happens here; other threads queue commands and wake the
/// thread with curl_multi_wakeup.
final class CurlLoop: @unchecked Sendable {
    enum Command {
        case add(Transfer)
        case unpause(Transfer)
        case remove(Transfer)
        case shutdown
    }

    private struct Queue {
        var commands: [Command] = []
        var closed = false
        var finished = false
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let multi: UnsafeMutableRawPointer
    private let queue = Locked(Queue())
    private let firstByteTimeoutNs: UInt64
    /// Easy handles currently in the multi handle (tests, metrics).
    let activeCount = Atomic<Int>(0)
    /// Easy handles between transfers, for any thread to take and the curl thread to return.
    let handles: EasyHandlePool

    // Curl thread only.
    /// Keyed by easy handle, but handles are pooled: once a transfer has finished, its handle may
    /// already carry the next transfer. A command or deadline about a transfer therefore acts only
    /// while `isActive(transfer)`; a late cancel or unpause must not touch the handle's new owner.
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]
    private var awaitingHead: [Transfer] = []
    /// Transfers whose consumer is woken when the current pass ends.
    private var toWake: [Transfer] = []

    /// How many hosts' worth of idle connections the cache keeps (the origin and a few CDN hosts).
    static let idleConnectionHosts = 4

    init(configuration: UpstreamConfiguration) throws(UpstreamError) {
        let initCode = cs_global_init_once()
        guard initCode == CURLE_OK else { throw .setup("curl_global_init failed: \(curlErrorString(initCode))") }
        guard let multi = curl_multi_init() else { throw .setup("curl_multi_init failed") }
        self.multi = multi
        self.firstByteTimeoutNs = configuration.firstByteTimeout.nanoseconds
        let perHost = max(configuration.maxConnectionsPerHost, 1)
        self.handles = EasyHandlePool(capacity: perHost)
        _ = cs_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, perHost)
        // curl's default cache size follows the number of transfers in the multi handle at the
        // moment one ends (4 per transfer): whenever the load dipped, it closed idle origin
        // connections that the next burst had to open again.
        _ = cs_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, perHost * Self.idleConnectionHosts)
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "hlschaos-curl"
        thread.start()
    }

    // MARK: any thread

    func submit(_ transfer: Transfer) -> Bool {
        enqueue(.add(transfer))
    }

    /// Queues `command` and wakes the curl thread unless a wake-up is already pending
    /// (the queue was not empty). False when the loop has shut down.
    @discardableResult
    func enqueue(_ command: Command) -> Bool {
        queue.withLock { queue in
            guard !queue.closed else { return false }
            queue.commands.append(command)
            // Under the lock: the curl thread cleans the multi handle up only after closing the queue.
            if queue.commands.count == 1 { _ = curl_multi_wakeup(multi) }
            return true
        }
    }

    /// Cancels every transfer, stops the thread and waits for it to finish.
    func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finishedAlready = queue.withLock { queue -> Bool in
                if queue.finished { return true }
                queue.shutdownWaiters.append(continuation)
                if !queue.closed {
                    queue.commands.append(.shutdown)
                    if queue.commands.count == 1 { _ = curl_multi_wakeup(multi) }
                }
                return false
            }
            if finishedAlready { continuation.resume() }
        }
    }

    func requestShutdown() {
        enqueue(.shutdown)
    }

    // MARK: curl thread

    func scheduleWake(_ transfer: Transfer) {
        transfer.wakeScheduled = true
        toWake.append(transfer)
    }

    private func wakeConsumers() {
        guard !toWake.isEmpty else { return }
        let woken = toWake
        toWake.removeAll(keepingCapacity: true)
        for transfer in woken { transfer.wakeConsumer() }
    }

    private func run() {
        var running: Int32 = 0
        while true {
            var commands: [Command] = []
            queue.withLock { swap(&commands, &$0.commands) }
            var stop = false
            for command in commands {
                switch command {
                case let .add(transfer): add(transfer)
                case let .unpause(transfer):
                    if isActive(transfer) { _ = cs_easy_unpause(transfer.handle) }
                case let .remove(transfer): remove(transfer, error: nil)
                case .shutdown: stop = true
                }
            }
            if stop { break }
            _ = curl_multi_perform(multi, &running)
            collectFinished()
            let timeoutMs = checkFirstByteDeadlines()
            wakeConsumers()
            _ = curl_multi_poll(multi, nil, 0, timeoutMs, nil)
        }
        tearDown()
    }

    private func add(_ transfer: Transfer) {
        transfer.startNs = cs_monotonic_ns()
        let code = curl_multi_add_handle(multi, transfer.handle)
        guard code == CURLM_OK else {
            transfer.fail(.setup("curl_multi_add_handle failed (\(code.rawValue)) for \(transfer.url)"))
            transfer.releaseHandle()
            return
        }
        active[transfer.handle] = transfer
        activeCount.store(active.count, ordering: .relaxed)
        awaitingHead.append(transfer)
    }

    private func isActive(_ transfer: Transfer) -> Bool {
        active[transfer.handle] === transfer
    }

    /// Takes the transfer out of the multi handle now. With an error, the transfer fails with it.
    private func remove(_ transfer: Transfer, error: UpstreamError?) {
        guard isActive(transfer) else { return }
        active.removeValue(forKey: transfer.handle)
        activeCount.store(active.count, ordering: .relaxed)
        _ = curl_multi_remove_handle(multi, transfer.handle)
        if let error { transfer.fail(error) }
        transfer.releaseHandle(reusable: false)
    }

    private func collectFinished() {
        var handle: UnsafeMutableRawPointer? = nil
        var code = CURLE_OK
        while cs_multi_next_done(multi, &handle, &code) == 1 {
            guard let handle, let transfer = active.removeValue(forKey: handle) else { continue }
            activeCount.store(active.count, ordering: .relaxed)
            _ = curl_multi_remove_handle(multi, handle)
            transfer.completed(code, nowNs: cs_monotonic_ns())
            transfer.releaseHandle()
        }
    }

    /// Fails transfers whose head is overdue; returns the poll timeout until the next deadline.
    private func checkFirstByteDeadlines() -> Int32 {
        guard !awaitingHead.isEmpty else { return 1000 }
        let now = cs_monotonic_ns()
        var next = now &+ 1_000_000_000
        var index = 0
        while index < awaitingHead.count {
            let transfer = awaitingHead[index]
            guard isActive(transfer),
                  let deadline = transfer.firstByteDeadline(timeoutNs: firstByteTimeoutNs, nowNs: now)
            else {
                awaitingHead.swapAt(index, awaitingHead.count - 1)
                awaitingHead.removeLast()
                continue
            }
            if deadline <= now {
                let waited = Duration.nanoseconds(Int64(clamping: firstByteTimeoutNs)).shortDescription
                remove(transfer, error: .timeout(url: transfer.url, phase: .firstByte, message: "no response head within \(waited)"))
                awaitingHead.swapAt(index, awaitingHead.count - 1)
                awaitingHead.removeLast()
                continue
            }
            next = min(next, deadline)
            index += 1
        }
        return Int32((next - now + 999_999) / 1_000_000)
    }

    private func tearDown() {
        var leftover: [Command] = []
        queue.withLock { queue in
            queue.closed = true
            swap(&leftover, &queue.commands)
        }
        for command in leftover {
            if case let .add(transfer) = command {
                transfer.fail(.setup("the upstream client is shut down (\(transfer.url))"))
                transfer.releaseHandle()
            }
        }
        for transfer in Array(active.values) { remove(transfer, error: .cancelled) }
        awaitingHead = []
        wakeConsumers()
        _ = curl_multi_cleanup(multi)
        handles.close()
        let waiters = queue.withLock { queue -> [CheckedContinuation<Void, Never>] in
            queue.finished = true
            defer { queue.shutdownWaiters = [] }
            return queue.shutdownWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
