import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import Proxy
import Records

/// The open live event streams (`GET /api/events/stream`), so their number stays bounded and a
/// shutdown can end them (an event stream never ends on its own).
final class EventStreams: Sendable {
    enum Item: Sendable {
        case record(RequestRecord)
        case heartbeat
    }

    let limit: Int
    private struct State {
        var open: [Int: AsyncStream<Item>.Continuation] = [:]
        var nextID = 0
        var closed = false
    }
    private let state = NIOLockedValueBox(State())

    init(limit: Int) {
        self.limit = max(limit, 1)
    }

    var count: Int { state.withLockedValue { $0.open.count } }
    var isFull: Bool { state.withLockedValue { $0.open.count >= limit || $0.closed } }

    /// A stream of items for one client; nil when `limit` streams are open or the server is stopping.
    func open() -> (id: Int, items: AsyncStream<Item>, continuation: AsyncStream<Item>.Continuation)? {
        let (items, continuation) = AsyncStream<Item>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        let id = state.withLockedValue { state -> Int? in
            guard !state.closed, state.open.count < limit else { return nil }
            state.nextID += 1
            state.open[state.nextID] = continuation
            return state.nextID
        }
        guard let id else { return nil }
        return (id, items, continuation)
    }

    func close(_ id: Int) {
        let continuation = state.withLockedValue { $0.open.removeValue(forKey: id) }
        continuation?.finish()
    }

    /// Ends every stream and refuses new ones.
    func closeAll() {
        let all = state.withLockedValue { state -> [AsyncStream<Item>.Continuation] in
            state.closed = true
            defer { state.open = [:] }
            return Array(state.open.values)
        }
        for continuation in all { continuation.finish() }
    }
}

/// Server-Sent Events (`text/event-stream`): one event per request record, `id:` the record id (a
/// reconnecting client sends it back as `Last-Event-ID` and gets what it missed from the records still
/// kept), `data:` the record's JSON on one line, and a comment line every `heartbeat` so idle
/// connections stay open through proxies.
struct EventStreamResponder {
    let proxy: ProxyControl
    let streams: EventStreams
    let heartbeat: Duration
    /// Records replayed to a client that comes back with `Last-Event-ID` (or `since`).
    static let maxReplay = 10_000

    func response(session: String?, after cursor: UInt64?) -> Response {
        let proxy = self.proxy
        let streams = self.streams
        let heartbeat = self.heartbeat
        let body = ResponseBody { writer in
            guard let (id, items, continuation) = streams.open() else {
                try await writer.finish(nil)
                return
            }
            // Subscribe before reading the backlog, so nothing falls between the two.
            // Filtered where records are emitted: another session's records do not wake this task.
            let live = proxy.subscribe(bufferingNewest: 4096) { session == nil || $0.session == session }
            let forward = Task {
                for await record in live {
                    continuation.yield(.record(record))
                }
            }
            let beat = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: heartbeat)
                    if Task.isCancelled { break }
                    continuation.yield(.heartbeat)
                }
            }
            defer {
                forward.cancel()
                beat.cancel()
                streams.close(id)
            }
            let encoder = SSEEncoder()
            try await writer.write(encoder.preamble())
            var replayed = Set<UInt64>()
            if let cursor {
                let backlog = proxy.records(session: session, since: cursor, limit: Self.maxReplay)
                for record in backlog {
                    replayed.insert(record.id)
                    try await writer.write(encoder.event(record))
                }
            }
            for await item in items {
                switch item {
                case .record(let record):
                    if !replayed.isEmpty, replayed.remove(record.id) != nil { continue }
                    try await writer.write(encoder.event(record))
                case .heartbeat:
                    try await writer.write(encoder.comment("heartbeat"))
                }
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store",
                HTTPField.Name("X-Accel-Buffering")!: "no",
            ],
            body: body)
    }
}

/// Writes SSE lines. A record's JSON has no line breaks (JSON escapes them), so `data:` is one line.
struct SSEEncoder {
    private let encoder = JSONOutput.encoder()
    private let allocator = ByteBufferAllocator()

    /// Tells the client how long to wait before reconnecting, and shows the stream is open.
    func preamble() -> ByteBuffer {
        allocator.buffer(string: "retry: 2000\n: hlschaos events\n\n")
    }

    func event(_ record: RequestRecord) -> ByteBuffer {
        let json = (try? encoder.encode(record)) ?? Data("{}".utf8)
        var buffer = allocator.buffer(capacity: json.count + 32)
        buffer.writeString("id: \(record.id)\ndata: ")
        buffer.writeBytes(json)
        buffer.writeString("\n\n")
        return buffer
    }

    func comment(_ text: String) -> ByteBuffer {
        allocator.buffer(string: ": \(text)\n\n")
    }
}
