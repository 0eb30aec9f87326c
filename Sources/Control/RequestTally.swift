import CoreMetrics
import NIOConcurrencyHelpers

/// One event loop's request metrics not yet handed to the registry, kept as plain numbers.
///
/// Counting into the registry's instruments directly would have both event loops write the same
/// counters and take the same histogram locks on every request, each write pulling the memory away
/// from the other core. A tally is written by its own loop only; it hands its numbers over (`fold`)
/// every `batch` requests and whenever `/metrics` is scraped, so a scrape shows every request
/// counted before it.
final class RequestTally: @unchecked Sendable {  // `lock` guards the rest
    /// Requests counted before the tally folds on its own: bounds the durations it holds.
    static let batch = 128

    /// Taken by the tally's event loop for each request (no other thread wants it then) and by a
    /// scrape.
    private let lock = NIOLock()
    private var entries: [Entry] = []
    private var indexByShape: [ControlMetrics.Shape: Int] = [:]
    /// The shape counted last, compared before `indexByShape` is hashed into.
    private var last: (shape: ControlMetrics.Shape, index: Int)?
    private var pending = 0

    fileprivate struct Entry {
        let instruments: ControlMetrics.Instruments
        var requests: Int64 = 0
        var bytes: Int64 = 0
        var upstreamFailures: Int64 = 0
        var durations: [Int64] = []
        var firstBytes: [Int64] = []
    }

    /// Counts one request of `shape`; `instruments` makes the shape's instruments the first time.
    func count(
        _ shape: ControlMetrics.Shape, bytes: Int, durationNanoseconds: Int64, firstByteNanoseconds: Int64?,
        upstreamFailed: Bool, instruments: (ControlMetrics.Shape) -> ControlMetrics.Instruments
    ) {
        lock.withLock {
            let index: Int
            if let last, last.shape == shape {
                index = last.index
            } else {
                index = indexByShape[shape] ?? {
                    entries.append(Entry(instruments: instruments(shape)))
                    indexByShape[shape] = entries.count - 1
                    return entries.count - 1
                }()
                last = (shape, index)
            }
            entries[index].requests += 1
            entries[index].bytes += Int64(bytes)
            entries[index].durations.append(durationNanoseconds)
            if let firstByteNanoseconds { entries[index].firstBytes.append(firstByteNanoseconds) }
            if upstreamFailed { entries[index].upstreamFailures += 1 }
            pending += 1
            if pending >= Self.batch { foldLocked() }
        }
    }

    /// Hands everything counted so far to the instruments.
    func fold() {
        lock.withLock { foldLocked() }
    }

    private func foldLocked() {
        guard pending > 0 else { return }
        for index in entries.indices where entries[index].requests > 0 { entries[index].handOver() }
        pending = 0
    }
}

extension RequestTally.Entry {
    /// Adds the numbers to the instruments and starts again from zero, keeping the arrays' storage
    /// (in place: a copy of the entry would share it and make the emptied arrays allocate anew).
    mutating func handOver() {
        instruments.requests.increment(by: requests)
        instruments.endings.increment(by: requests)
        if bytes > 0 { instruments.bytes.increment(by: bytes) }
        if upstreamFailures > 0 { instruments.upstreamFailures.increment(by: upstreamFailures) }
        for nanoseconds in durations { instruments.duration.recordNanoseconds(nanoseconds) }
        for nanoseconds in firstBytes { instruments.firstByte.recordNanoseconds(nanoseconds) }
        requests = 0
        bytes = 0
        upstreamFailures = 0
        durations.removeAll(keepingCapacity: true)
        firstBytes.removeAll(keepingCapacity: true)
    }
}
