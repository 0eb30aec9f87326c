import Chaos
import NIOCore

/// Sends a response body the way a fault says: at a capped rate, with a pause, damaged, or cut
/// short by a FIN (truncate) or an RST (reset). Without faults it only forwards.
struct BodyShaper {
    var bytesPerSecond: Int?
    var stall: (afterBytes: Int, duration: Duration)?
    /// Stop after this many body bytes; `reset` decides between RST and FIN.
    var cutAfter: Int?
    var reset = false
    var corruption: Corruption?

    private(set) var sent = 0
    private var stalled = false
    private let start = ContinuousClock.now

    init(_ action: WireAction?, contentLength: Int?) {
        switch action {
        case .throttle(let rate): bytesPerSecond = rate
        case .stall(let after, let duration): stall = (after, duration)
        case .reset(.afterBytes(let count)): cutAfter = count; reset = true
        case .truncate(let truncation):
            // Without a known length a fraction cannot be honoured; the body is sent whole.
            cutAfter = truncation.byteLimit(contentLength: contentLength)
        case .corrupt: corruption = Corruption(action!, bodyLength: contentLength)
        default: break
        }
    }

    var isPassthrough: Bool {
        bytesPerSecond == nil && stall == nil && cutAfter == nil && corruption == nil
    }

    enum Outcome { case more, cut }

    /// Sends one chunk (or the part of it the fault allows). `.cut` means the connection is gone.
    mutating func send(_ chunk: [UInt8], to client: ClientChannel) async throws -> Outcome {
        var chunk = chunk
        if let corruption { corruption.damage(&chunk, at: sent) }
        var slice = chunk[...]
        if let cutAfter, sent + slice.count >= cutAfter {
            slice = slice.prefix(cutAfter - sent)
            try await write(slice, to: client)
            try await client.flush()
            if reset { await client.reset() } else { await client.close() }
            return .cut
        }
        try await write(slice, to: client)
        return .more
    }

    /// Body finished before the cut point: a truncation or reset still happens at the end.
    mutating func finish(client: ClientChannel) async throws -> Outcome {
        guard cutAfter != nil else { return .more }
        try await client.flush()
        if reset { await client.reset() } else { await client.close() }
        return .cut
    }

    private mutating func write(_ bytes: ArraySlice<UInt8>, to client: ClientChannel) async throws {
        var rest = bytes
        if let stall, !stalled, sent + rest.count > stall.afterBytes {
            let before = rest.prefix(max(0, stall.afterBytes - sent))
            try await paced(before, to: client)
            try await client.flush()
            stalled = true
            try await Task.sleep(for: stall.duration)
            rest = rest.dropFirst(before.count)
        }
        try await paced(rest, to: client)
    }

    /// Writes in slices of a twentieth of a second's worth, sleeping to keep the average at the rate.
    private mutating func paced(_ bytes: ArraySlice<UInt8>, to client: ClientChannel) async throws {
        guard let rate = bytesPerSecond else {
            try await client.sendBody(bytes)
            sent += bytes.count
            return
        }
        let slice = max(1, rate / 20)
        var rest = bytes
        while !rest.isEmpty {
            let piece = rest.prefix(slice)
            try await client.sendBody(piece)
            try await client.flush()
            sent += piece.count
            rest = rest.dropFirst(piece.count)
            let due = start + .milliseconds(Int64(Double(sent) / Double(rate) * 1000))
            if due > ContinuousClock.now { try await Task.sleep(until: due, clock: .continuous) }
        }
    }
}
