import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a child process writes to one pipe, collected as it arrives, and whether the pipe has
/// ended (every writer closed it: the child has exited and nothing it started still holds it).
/// Wait for `waitForEnd` before reading a finished child's output: an exited child's last bytes
/// may still be on their way to the reading thread.
///
/// The pipe is read by a thread of its own with blocking reads, not by `FileHandle`'s
/// `readabilityHandler`: tearing that handler's dispatch source down races libdispatch's epoll
/// bookkeeping on Linux and crashes the whole test process now and then, on libdispatch's manager
/// thread in `_dispatch_event_loop_drain` (swift-corelibs-libdispatch issue 949,
/// swift-corelibs-foundation issue 3276). A blocking read registers nothing with libdispatch.
public final class OutputCollector: @unchecked Sendable {
    public let pipe = Pipe()
    private let lock = NSLock()
    private var data = Data()
    private var ended = false

    public init() {
        let handle = pipe.fileHandleForReading
        let thread = Thread { [weak self] in
            // `handle` is held until the end, so its descriptor stays open while it is read.
            let descriptor = handle.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard let self else { if count <= 0 { return } else { continue } }
                self.lock.withLock {
                    if count > 0 { self.data.append(contentsOf: buffer[0..<count]) } else { self.ended = true }
                }
                if count <= 0 { return }
            }
        }
        thread.name = "output-collector"
        thread.start()
    }

    public var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
    public var hasEnded: Bool { lock.withLock { ended } }

    /// Waits until the pipe has ended; false when it still had not after `timeout` (a grandchild
    /// kept it open), and what arrived until then is all there is to read.
    @discardableResult
    public func waitForEnd(timeout: Duration = .seconds(10)) async -> Bool {
        await eventually(timeout: timeout) { self.hasEnded }
    }
}
