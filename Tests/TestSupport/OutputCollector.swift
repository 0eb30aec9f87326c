import Foundation

/// What a child process writes to one pipe, collected as it arrives, and whether the pipe has
/// ended (every writer closed it: the child has exited and nothing it started still holds it).
/// Wait for `waitForEnd` before reading a finished child's output: an exited child's last bytes
/// may still be on their way to the readability handler.
public final class OutputCollector: @unchecked Sendable {
    public let pipe = Pipe()
    private let lock = NSLock()
    private var data = Data()
    private var ended = false

    public init() {
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let chunk = handle.availableData
            if chunk.isEmpty { handle.readabilityHandler = nil }
            guard let self else { return }
            self.lock.withLock {
                if chunk.isEmpty { self.ended = true } else { self.data.append(chunk) }
            }
        }
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
