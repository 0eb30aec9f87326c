import NIOPosix
import Synchronization

/// Values an object keeps one of per thread, for the work every request does on its event loop
/// when it ends (counting it in the metrics, handing its record to the listeners): each loop reads
/// its own copy, so the loops do not take a shared lock in turn on every request.
///
/// One thread-specific key for the whole process (a process has 1,024; a key per owner would run
/// out in a test process that starts hundreds of proxies). Owners are told apart by a `Key` made
/// once per owner: an id that is never reused, unlike an object's address. A thread keeps the
/// values of its `keptPerThread` most recently used owners.
public enum PerThreadCache {
    public final class Key: Sendable {
        fileprivate let id: UInt64
        public init() { id = nextID.add(1, ordering: .relaxed).oldValue }
    }

    static let keptPerThread = 16
    private static let nextID = Atomic<UInt64>(1)
    private static let tables = ThreadSpecificVariable<Table>()

    private final class Table: @unchecked Sendable {  // touched only by its own thread
        var entries: [(id: UInt64, value: AnyObject)] = []
    }

    /// This thread's value for `key`, made by `make` the first time.
    public static func value<Value: AnyObject>(_ key: Key, make: () -> Value) -> Value {
        let table = tables.currentValue ?? {
            let made = Table()
            tables.currentValue = made
            return made
        }()
        for entry in table.entries where entry.id == key.id {
            return unsafeDowncast(entry.value, to: Value.self)
        }
        let value = make()
        if table.entries.count >= keptPerThread { table.entries.removeFirst() }
        table.entries.append((key.id, value))
        return value
    }
}
