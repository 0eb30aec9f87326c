import CurlShim
import NIOConcurrencyHelpers
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The one curl multi handle and the thread that drives it with curl_multi_poll. Every touch of
/// an easy handle after submission happens here; other threads queue commands and wake the
/// thread through an eventfd that curl_multi_poll watches beside curl's own sockets.
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
    private let queue = NIOLockedValueBox(Queue())
    /// Written to wake the curl thread. Not curl_multi_wakeup: that must not run once the thread
    /// has cleaned the multi handle up, so it had to be called under the queue's lock, and the
    /// system call inside the lock made the event loops and the curl thread wait for each other
    /// (a futex sleep and wake-up on about one request in five under load). The descriptor lives as
    /// long as this object, so it is written after the lock is released.
    private let wakeDescriptor: Int32
    private let firstByteTimeoutNs: UInt64
    /// Easy handles currently in the multi handle (tests, metrics).
    let activeCount = Atomic<Int>(0)
    /// Easy handles between transfers, for any thread to take and the curl thread to return.
    let handles: EasyHandlePool
    /// What every transfer applies; transfers hold this loop, so it outlives them.
    let sharedOptions: SharedTransferOptions

    // Curl thread only.
    /// Keyed by easy handle, but handles are pooled: once a transfer has finished, its handle may
    /// already carry the next transfer. A command or deadline about a transfer therefore acts only
    /// while `isActive(transfer)`; a late cancel or unpause must not touch the handle's new owner.
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]
    private var awaitingHead: [Transfer] = []
    /// Transfers whose consumer is woken when the current pass ends.
    private var toWake: [Transfer] = []
    /// Emptied lists kept for their storage, swapped with `toWake` and the queue's commands on every
    /// pass (a list handed over and emptied while another holds it would allocate anew each pass).
    private var spareWoken: [Transfer] = []
    private var spareCommands: [Command] = []

    /// How many hosts' worth of idle connections the cache keeps (the origin and a few CDN hosts).
    static let idleConnectionHosts = 4
    static let maximumIdleConnections = 512

    init(configuration: UpstreamConfiguration, systemCABundle: String?) throws(UpstreamError) {
        let initCode = cs_global_init_once()
        guard initCode == CURLE_OK else { throw .setup("curl_global_init failed: \(curlErrorString(initCode))") }
        self.sharedOptions = try SharedTransferOptions(configuration, systemCABundle: systemCABundle)
        let wakeDescriptor = cs_wake_descriptor()
        guard wakeDescriptor >= 0 else { throw .setup("eventfd failed: \(String(cString: strerror(errno)))") }
        guard let multi = curl_multi_init() else {
            close(wakeDescriptor)
            throw .setup("curl_multi_init failed")
        }
        self.multi = multi
        self.wakeDescriptor = wakeDescriptor
        self.firstByteTimeoutNs = configuration.firstByteTimeout.nanoseconds
        let perHost = max(configuration.maxConnectionsPerHost, 1)
        self.handles = EasyHandlePool(capacity: perHost)
        _ = cs_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, perHost)
        // curl's default cache size follows the number of transfers in the multi handle at the
        // moment one ends (4 per transfer): whenever the load dipped, it closed idle origin
        // connections that the next burst had to open again.
        // At most 512 idle ones however many may be open: each holds a descriptor.
        _ = cs_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, min(perHost * Self.idleConnectionHosts, max(perHost, Self.maximumIdleConnections)))
    }

    deinit { close(wakeDescriptor) }

    func start() {
        let thread = Thread { [self] in
            // Foundation on Linux does not apply a name set before start: named from inside, so
            // that top -H and /proc show the curl thread as such (it would inherit the pool's name).
            Thread.current.name = "hlschaos-curl"
            run()
        }
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
        let (accepted, wake) = queue.withLockedValue { queue -> (Bool, Bool) in
            guard !queue.closed else { return (false, false) }
            queue.commands.append(command)
            return (true, queue.commands.count == 1)
        }
        if wake { wakeCurlThread() }
        return accepted
    }

    /// Makes the curl thread's poll return (now, or at once the next time it polls).
    private func wakeCurlThread() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Cancels every transfer, stops the thread and waits for it to finish.
    func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (finishedAlready, wake) = queue.withLockedValue { queue -> (Bool, Bool) in
                if queue.finished { return (true, false) }
                queue.shutdownWaiters.append(continuation)
                guard !queue.closed else { return (false, false) }
                queue.commands.append(.shutdown)
                return (false, queue.commands.count == 1)
            }
            if wake { wakeCurlThread() }
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
        var woken = spareWoken
        spareWoken = []
        swap(&woken, &toWake)
        for transfer in woken { transfer.wakeConsumer() }
        woken.removeAll(keepingCapacity: true)
        spareWoken = woken
    }

    private func run() {
        var running: Int32 = 0
        while true {
            var commands = spareCommands
            spareCommands = []
            queue.withLockedValue { swap(&commands, &$0.commands) }
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
            commands.removeAll(keepingCapacity: true)
            spareCommands = commands
            if stop { break }
            _ = curl_multi_perform(multi, &running)
            collectFinished()
            let timeoutMs = checkFirstByteDeadlines()
            wakeConsumers()
            var wake = curl_waitfd(fd: wakeDescriptor, events: Int16(CURL_WAIT_POLLIN), revents: 0)
            _ = curl_multi_poll(multi, &wake, 1, timeoutMs, nil)
            if wake.revents != 0 {
                var count: UInt64 = 0
                _ = read(wakeDescriptor, &count, MemoryLayout<UInt64>.size)
            }
        }
        tearDown()
    }

    private func add(_ transfer: Transfer) {
        transfer.startNs = cs_monotonic_ns()
        let code = curl_multi_add_handle(multi, transfer.handle)
        guard code == CURLM_OK else {
            // Never in the multi: the transfer's deinit releases the handle.
            transfer.fail(.setup("curl_multi_add_handle failed (\(code.rawValue)) for \(transfer.url)"))
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
        if let error { transfer.fail(error) }
        detach(transfer, finished: nil)
    }

    private func collectFinished() {
        var handle: UnsafeMutableRawPointer? = nil
        var code = CURLE_OK
        while cs_multi_next_done(multi, &handle, &code) == 1 {
            guard let handle, let transfer = active[handle] else { continue }
            detach(transfer, finished: code)
        }
    }

    /// The one way out of the multi handle: the transfer leaves `active`, curl lets go of the
    /// handle, a finished transfer reports how it ended, and the handle is released. Only a handle
    /// whose transfer finished cleanly is reused: one taken out early (a cancel, a deadline), or a
    /// failed one (a name that does not resolve, say), can leave state behind that curl_easy_reset
    /// does not clear, and the next CURLOPT_BUFFERSIZE on the handle failed (see `releaseHandle`).
    private func detach(_ transfer: Transfer, finished code: CURLcode?) {
        active.removeValue(forKey: transfer.handle)
        activeCount.store(active.count, ordering: .relaxed)
        _ = curl_multi_remove_handle(multi, transfer.handle)
        if let code { transfer.completed(code, nowNs: cs_monotonic_ns()) }
        transfer.releaseHandle(reusable: code == CURLE_OK)
    }

    /// Fails transfers whose head is overdue; returns the poll timeout until the next deadline.
    private func checkFirstByteDeadlines() -> Int32 {
        guard !awaitingHead.isEmpty else { return 1000 }
        let now = cs_monotonic_ns()
        var next = now &+ 1_000_000_000
        var index = 0
        while index < awaitingHead.count {
            let transfer = awaitingHead[index]
            let timeoutNs = transfer.firstByteTimeoutNs ?? firstByteTimeoutNs
            guard isActive(transfer),
                  let deadline = transfer.firstByteDeadline(timeoutNs: timeoutNs, nowNs: now)
            else {
                awaitingHead.swapAt(index, awaitingHead.count - 1)
                awaitingHead.removeLast()
                continue
            }
            if deadline <= now {
                let waited = Duration.nanoseconds(Int64(clamping: timeoutNs)).shortDescription
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
        queue.withLockedValue { queue in
            queue.closed = true
            swap(&leftover, &queue.commands)
        }
        for command in leftover {
            if case let .add(transfer) = command {
                // Never in the multi: the transfer's deinit releases the handle.
                transfer.fail(.setup("the upstream client is shut down (\(transfer.url))"))
            }
        }
        for transfer in Array(active.values) { remove(transfer, error: .cancelled) }
        awaitingHead = []
        wakeConsumers()
        _ = curl_multi_cleanup(multi)
        handles.close()
        // No transfer reads the CA bundle any more.
        sharedOptions.caBundle?.remove()
        let waiters = queue.withLockedValue { queue -> [CheckedContinuation<Void, Never>] in
            queue.finished = true
            defer { queue.shutdownWaiters = [] }
            return queue.shutdownWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
