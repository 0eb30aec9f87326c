/// The newest records, at most `capacity` of them, oldest first, kept as bytes (`RecordBytes`) in
/// one buffer allocated once: appending past the capacity (or past the buffer) drops the oldest, and
/// no record holds an allocation of its own. A record is written straight into the free bytes after
/// the newest (counted first and made room for only when it does not fit there); reading decodes the
/// records asked for.
///
/// Not thread-safe: its owner serialises every call (`RecordLog` holds it under a lock).
public final class RecordRing: @unchecked Sendable {
    /// Bytes reserved per record of capacity. A record of the demo's segments takes about 250, one
    /// with long tokenised CDN URLs 500 to 700; when records are longer than this on average, the ring keeps
    /// fewer than `capacity`. Pages are taken from the system only as records fill them.
    public static let bytesPerRecord = 768
    /// A record longer than the whole buffer is not kept (its strings are cut at 8 KB each, so only
    /// a record with hundreds of matched rules could be).
    public static let minimumBytes = 256 << 10

    public let capacity: Int
    public let byteCapacity: Int
    public private(set) var count = 0
    private let storage: UnsafeMutableRawPointer
    /// Offset of the oldest record; records follow each other as a 4-byte length and its bytes.
    private var head = 0
    /// Offset where the next record goes.
    private var tail = 0
    /// When the newest records continue at the start of the buffer, the end of the older ones.
    private var wrapEnd: Int?

    public init(capacity: Int, bytesPerRecord: Int = RecordRing.bytesPerRecord) {
        self.capacity = max(1, capacity)
        let (bytes, overflow) = self.capacity.multipliedReportingOverflow(by: max(64, bytesPerRecord))
        self.byteCapacity = max(Self.minimumBytes, overflow ? Int(UInt32.max) : min(bytes, Int(UInt32.max)))
        self.storage = UnsafeMutableRawPointer.allocate(byteCount: byteCapacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// Bytes the kept records take.
    public var byteCount: Int {
        guard count > 0 else { return 0 }
        if let wrapEnd { return wrapEnd - head + tail }
        return tail - head
    }

    public func append(_ record: RequestRecord) {
        if count == capacity { dropOldest() }
        // Most records fit in the free bytes after the newest: written there at once.
        let free = wrapEnd == nil ? byteCapacity - tail : head - tail
        if free > 4, let length = RecordBytes.write(record, to: storage + tail + 4, limit: free - 4) {
            return commit(length)
        }
        let length = RecordBytes.count(record)
        let need = 4 + length
        guard need <= byteCapacity else { return }
        while true {
            if wrapEnd != nil {  // in use: [head, wrapEnd) then [0, tail)
                if tail + need <= head { break }
            } else {  // in use: [head, tail)
                if tail + need <= byteCapacity { break }
                if need <= head {  // no room at the end: go on at the start, before the oldest
                    wrapEnd = tail
                    tail = 0
                    break
                }
            }
            dropOldest()
        }
        guard RecordBytes.write(record, to: storage + tail + 4, limit: length) == length else {
            return assertionFailure("RecordBytes.count and write disagree")
        }
        commit(length)
    }

    /// Makes the record just written after `tail` the newest.
    private func commit(_ length: Int) {
        storage.storeBytes(of: UInt32(length).littleEndian, toByteOffset: tail, as: UInt32.self)
        tail += 4 + length
        count += 1
    }

    private func dropOldest() {
        guard count > 0 else { return }
        head += 4 + length(at: head)
        count -= 1
        if count == 0 {
            (head, tail, wrapEnd) = (0, 0, nil)
        } else if head == wrapEnd {
            (head, wrapEnd) = (0, nil)
        }
    }

    private func length(at offset: Int) -> Int {
        Int(UInt32(littleEndian: storage.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }

    /// Calls `body` with each record's bytes, oldest first, until it returns false.
    private func forEachRecord(_ body: (UnsafeRawBufferPointer) -> Bool) {
        var offset = head
        var beforeWrap = wrapEnd != nil
        for _ in 0..<count {
            if beforeWrap && offset == wrapEnd {
                offset = 0
                beforeWrap = false
            }
            let length = length(at: offset)
            guard body(UnsafeRawBufferPointer(start: storage + offset + 4, count: length)) else { return }
            offset += 4 + length
        }
    }

    /// Every record kept, oldest first.
    public var all: [RequestRecord] { since(0) }

    /// Records with an id above `cursor` (of `session` only, when given), oldest first, at most
    /// `limit` of them (the oldest ones: a reader pages forward with the last id it got).
    public func since(_ cursor: UInt64, limit: Int = .max, session: String? = nil) -> [RequestRecord] {
        copy(since: cursor, limit: limit, session: session).records
    }

    /// The bytes of the records `since` would return: quick to take under the owner's lock, while
    /// decoding them (`Copy.records`) can wait until the lock is released.
    public func copy(since cursor: UInt64, limit: Int = .max, session: String? = nil) -> Copy {
        var copy = Copy()
        guard limit > 0 else { return copy }
        let sessionBytes = session.map { Array($0.utf8) }
        forEachRecord { bytes in
            guard let (id, matches) = RecordBytes.peek(bytes, session: sessionBytes), id > cursor, matches else { return true }
            copy.bytes.append(contentsOf: bytes)
            copy.ends.append(copy.bytes.count)
            return copy.ends.count < limit
        }
        return copy
    }

    /// Records as bytes, taken out of the ring.
    public struct Copy: Sendable {
        fileprivate var bytes: [UInt8] = []
        fileprivate var ends: [Int] = []

        public var count: Int { ends.count }

        public var records: [RequestRecord] {
            bytes.withUnsafeBytes { all in
                var start = 0
                return ends.compactMap { end in
                    defer { start = end }
                    return RecordBytes.decode(UnsafeRawBufferPointer(rebasing: all[start..<end]))
                }
            }
        }
    }
}
