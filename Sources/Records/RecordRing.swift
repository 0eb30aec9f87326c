/// The newest records, at most `capacity` of them, oldest first. Appending past the capacity drops
/// the oldest; memory never grows beyond it.
public struct RecordRing: Sendable {
    public let capacity: Int
    private var storage: [RequestRecord] = []
    /// Index in `storage` of the oldest record once the ring is full.
    private var start = 0

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    public var count: Int { storage.count }

    public mutating func append(_ record: RequestRecord) {
        if storage.count < capacity {
            storage.append(record)
        } else {
            storage[start] = record
            start = (start + 1) % capacity
        }
    }

    /// Every record kept, oldest first.
    public var all: [RequestRecord] { Array(storage[start...] + storage[..<start]) }

    /// Records with an id above `cursor`, oldest first, at most `limit` of them (the oldest ones:
    /// a reader pages forward with the last id it got).
    public func since(_ cursor: UInt64, limit: Int = .max, where include: (RequestRecord) -> Bool = { _ in true }) -> [RequestRecord] {
        var found: [RequestRecord] = []
        for record in storage[start...] + storage[..<start] where record.id > cursor && include(record) {
            found.append(record)
            if found.count == limit { break }
        }
        return found
    }
}
