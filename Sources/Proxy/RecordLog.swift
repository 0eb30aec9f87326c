import Foundation
import Logging
import NIOConcurrencyHelpers
import Records
import Synchronization

/// Where request records go when their response ends: one ring of the newest records of every
/// session (bounded by `capacity`, kept as bytes: `RecordRing`; a session's records are read off it
/// by id), the log (at debug, a `fault` or `request` line each), an optional
/// JSON Lines file that keeps everything, and live subscribers.
public final class RecordLog: Sendable {
    public static let defaultCapacity = 50_000
    private let recent: NIOLockedValueBox<Recent>
    private let logger: Logger
    /// Read once: asking the logger's handler for its level on every record costs more than the test.
    private let logsEachRecord: Bool
    private let file: JSONLinesFile?
    private let nextSubscriber = Atomic<UInt64>(1)

    /// The ring, the id of the next record and the live readers, under one lock (`emit` takes it
    /// once): ids are given in the order records go into the ring, so a reader paging with "since"
    /// never passes over a record appended late.
    private struct Recent {
        let ring: RecordRing
        var nextID: UInt64 = 1
        var subscribers = Subscribers()
    }

    /// The readers by id, and the same as a list that `emit` takes without copying (it runs for
    /// every request).
    private struct Subscribers {
        private var byID: [UInt64: Subscriber] = [:]
        private(set) var list: [Subscriber] = []

        subscript(id: UInt64) -> Subscriber? {
            get { byID[id] }
            set {
                byID[id] = newValue
                list = Array(byID.values)
            }
        }
    }

    /// A live reader: a stream fed on the emitting thread, or a plain function called there. A class,
    /// so that handing each record to the list retains one object per reader, not its parts.
    private final class Subscriber: Sendable {
        let deliver: @Sendable (RequestRecord) -> Void

        init(stream continuation: AsyncStream<RequestRecord>.Continuation, filter: @escaping @Sendable (RequestRecord) -> Bool) {
            deliver = { record in if filter(record) { continuation.yield(record) } }
        }

        init(observer: @escaping @Sendable (RequestRecord) -> Void) {
            deliver = observer
        }
    }

    init(capacity: Int = RecordLog.defaultCapacity, file: JSONLinesFile? = nil, logger: Logger) {
        self.recent = NIOLockedValueBox(Recent(ring: RecordRing(capacity: capacity)))
        self.file = file
        self.logger = logger
        self.logsEachRecord = logger.logLevel <= .debug
    }

    /// The log the configuration asks for; throws a message naming the events file when it
    /// cannot be opened.
    convenience init(configuration: ProxyConfiguration, logger: Logger) throws {
        let file = try configuration.eventsFile.map {
            try JSONLinesFile(path: $0, maxBytes: configuration.eventsFileMaxBytes, logger: logger)
        }
        self.init(capacity: configuration.memory.recordBufferSize, file: file, logger: logger)
    }

    /// Waits until the records emitted so far are in the events file.
    public func flush() {
        file?.flush()
    }

    /// How many records the ring holds now (at most its capacity).
    public var keptCount: Int { recent.withLockedValue { $0.ring.count } }

    /// The bytes those records take, and the most the ring may take.
    public var keptBytes: (used: Int, limit: Int) { recent.withLockedValue { ($0.ring.byteCount, $0.ring.byteCapacity) } }

    /// The newest records of every session, oldest first.
    public var all: [RequestRecord] { since(0) }

    public func since(_ cursor: UInt64, limit: Int = .max) -> [RequestRecord] {
        recent.withLockedValue { $0.ring.copy(since: cursor, limit: limit) }.records
    }

    /// One session's records kept, oldest first, after `cursor`.
    public func records(session: String, since cursor: UInt64 = 0, limit: Int = .max) -> [RequestRecord] {
        recent.withLockedValue { $0.ring.copy(since: cursor, limit: limit, session: session) }.records
    }

    /// Records as they are emitted, until the stream is dropped (the control API's live feed).
    /// `filter` runs on the emitting thread (an event loop: keep it cheap); only the records it
    /// accepts wake the reader. Each record handed to a stream wakes a task on another thread,
    /// which costs more than the rest of recording it: a reader that wants a few records filters.
    public func subscribe(
        bufferingNewest limit: Int = 1000, where filter: @escaping @Sendable (RequestRecord) -> Bool = { _ in true }
    ) -> AsyncStream<RequestRecord> {
        let id = nextSubscriber.wrappingAdd(1, ordering: .relaxed).oldValue
        let (stream, continuation) = AsyncStream<RequestRecord>.makeStream(bufferingPolicy: .bufferingNewest(limit))
        continuation.onTermination = { [weak self] _ in self?.setSubscriber(id, nil) }
        setSubscriber(id, Subscriber(stream: continuation, filter: filter))
        return stream
    }

    /// Calls `observer` with every record, on the emitting thread (an event loop), until the
    /// returned observation is cancelled: for short work such as counting (metrics).
    public func observe(_ observer: @escaping @Sendable (RequestRecord) -> Void) -> Observation {
        let id = nextSubscriber.wrappingAdd(1, ordering: .relaxed).oldValue
        setSubscriber(id, Subscriber(observer: observer))
        return Observation { [weak self] in self?.setSubscriber(id, nil) }
    }

    private func setSubscriber(_ id: UInt64, _ subscriber: Subscriber?) {
        recent.withLockedValue { $0.subscribers[id] = subscriber }
    }

    public struct Observation: Sendable {
        let stop: @Sendable () -> Void
        public func cancel() { stop() }
    }

    /// Numbers `record` (ids increase across the process: a cursor for "since"), keeps it and hands
    /// it to every reader.
    func emit(_ record: inout RequestRecord) {
        let subscribers = recent.withLockedValue { recent in
            record.id = recent.nextID
            recent.nextID += 1
            recent.ring.append(record)
            return recent.subscribers.list
        }
        for subscriber in subscribers { subscriber.deliver(record) }
        file?.write(record)
        // The terminal gets its own compact lines (RecordPrinter); the log has them at debug.
        if logsEachRecord {
            logger.debug(record.isFaulted ? "fault" : "request", metadata: Self.metadata(record))
        }
    }

    static func metadata(_ record: RequestRecord) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "session": "\(record.session)", "kind": "\(record.kind?.rawValue ?? "-")", "msn": "\(record.msn.map(String.init) ?? "-")",
            "status": "\(record.status.map(String.init) ?? "-")", "ending": "\(record.ending.rawValue)", "uri": "\(record.path)",
        ]
        if record.isFaulted {
            metadata["rules"] = "\(record.matchedRules.joined(separator: ","))"
            metadata["actions"] = "\(record.actions.map(\.words).joined(separator: "; "))"
        }
        return metadata
    }
}
