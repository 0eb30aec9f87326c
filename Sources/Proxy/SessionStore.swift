import Chaos
import Foundation
import Link
import NIOConcurrencyHelpers

/// One device's view of the proxy: its own clock and counters. Created by its first request and
/// forgotten after `idleTimeout` without requests, or when the store is full and it is the least
/// recently used.
public final class Session: Sendable {
    public let id: String
    public let startedAt: Date
    private let counters = NIOLockedValueBox(0)
    /// Rule counters, clock origin and playlist history (Chaos) plus what the session's playlists
    /// taught the proxy about variants and segments.
    let memory: NIOLockedValueBox<Memory>

    struct Memory {
        var rules: SessionState
        var catalog = SessionCatalog()
        /// The scenario the control API set on this session, with its clock origin.
        var layer: RuleEngine.Layer?
        /// The link the control API set on this session: it goes before the layers' links.
        var ownLink: LinkChoice?
        /// `stripCMCD` as the control API set it for this session (nil: the configuration's).
        var stripCMCD: Bool?
    }

    /// The device's link: what its responses share.
    public let link: SessionLink

    init(id: String, now: Date, historyBytes: Int, clock: any ChaosClock = SystemChaosClock()) {
        self.id = id
        self.startedAt = now
        self.memory = NIOLockedValueBox(Memory(rules: SessionState(sessionID: id, historyBudget: historyBytes)))
        var seed = StableHash()
        seed.combine(id)
        self.link = SessionLink(clock: clock, seed: seed.value)
    }

    /// The variants' BANDWIDTH in the master's order, nil before a master was fetched.
    static func ladder(_ catalog: SessionCatalog) -> [Int]? {
        guard !catalog.variants.isEmpty else { return nil }
        return catalog.variants.sorted { $0.key < $1.key }.map(\.value.bandwidth)
    }

    /// The link the control API set on this session (nil: none; the layers and `serve --link` decide).
    public var ownLink: LinkChoice? { memory.withLockedValue { $0.ownLink } }

    /// Sets (or with nil, clears) the session's own link. It runs at once, also for the bodies in
    /// flight; a spec relative to the ladder waits for the session's master. When cleared, the link
    /// the session's layers give (or none) runs from its next request.
    public func setLink(_ choice: LinkChoice?) throws(LinkSpecError) {
        // Under the session's lock (taken before the link's, as a request's decision does), so no
        // request adopts the link of its layers between the two steps.
        let refused = memory.withLockedValue { memory -> LinkSpecError? in
            do throws(LinkSpecError) {
                try link.set(choice, ladder: Self.ladder(memory.catalog))
            } catch {
                return error
            }
            memory.ownLink = choice
            return nil
        }
        if let refused { throw refused }
    }

    public var requestCount: Int { counters.withLockedValue { $0 } }

    /// What the session's playlists said, for reading its records: the target duration, each
    /// variant's bandwidth and the newest MSN its media playlist listed.
    public var playlistFacts: (targetDuration: Double?, bandwidths: [Int: Int], lastMSN: [Int: Int]) {
        memory.withLockedValue { memory in
            let catalog = memory.catalog
            return (catalog.targetDuration.map(Double.init), catalog.variants.mapValues(\.bandwidth), catalog.lastMSN)
        }
    }

    /// The scenario set on this session through the control API (nil: none).
    public var scenario: Scenario? { memory.withLockedValue { $0.layer?.scenarios.first } }

    /// Sets (or with nil, clears) the session's own scenario. Its clock starts at `now`, and the
    /// counters of the scenario it replaces and of the new one start from zero.
    public func setScenario(_ scenario: Scenario?, now: Duration) {
        memory.withLockedValue { memory in
            var names = Set(memory.layer?.scenarios.map(\.name) ?? [])
            if let scenario { names.insert(scenario.name) }
            memory.rules.resetCounters(scenarios: names)
            memory.layer = scenario.map { RuleEngine.Layer([$0], origin: now) }
        }
    }
    /// Whether the session's requests lose their CMCD before the upstream fetch; nil: as configured.
    public var stripCMCD: Bool? {
        get { memory.withLockedValue { $0.stripCMCD } }
        set { memory.withLockedValue { $0.stripCMCD = newValue } }
    }

    /// Playlists whose past versions the session keeps, and their bytes (for `freeze` and `lag`).
    public var historyCount: Int { memory.withLockedValue { $0.rules.histories.count } }
    public var historyBytes: Int { memory.withLockedValue { $0.rules.historyBytes } }

    func countRequest() {
        counters.withLockedValue { $0 += 1 }
    }

    func uncountRequest() {
        counters.withLockedValue { $0 -= 1 }
    }
}

/// The live sessions, keyed by id. Requests without a `/s/<id>/` prefix share `defaultID`.
///
/// Kept in least-recently-used order (a doubly linked list through the entries), so every request
/// costs O(1): a lookup, a move to the front, and the expiry of idle sessions from the back, which
/// are exactly the least recently used ones.
public final class SessionStore: Sendable {
    public static let defaultID = "default"
    public let idleTimeout: TimeInterval
    public let capacity: Int
    public let historyBytes: Int
    private let now: @Sendable () -> Date
    private let notice: LimitNotice?
    /// The clock sessions' links run on: the rules' clock.
    private let clock: any ChaosClock
    private let list = NIOLockedValueBox(LRUList())

    public convenience init(
        idleTimeout: TimeInterval, capacity: Int = 10_000, historyBytes: Int = 4 * 1024 * 1024,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.init(idleTimeout: idleTimeout, capacity: capacity, historyBytes: historyBytes, notice: nil, now: now)
    }

    init(
        idleTimeout: TimeInterval, capacity: Int, historyBytes: Int = 4 * 1024 * 1024, notice: LimitNotice?,
        clock: any ChaosClock = SystemChaosClock(), now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.clock = clock
        self.idleTimeout = idleTimeout
        self.capacity = max(1, capacity)
        self.historyBytes = historyBytes
        self.notice = notice
        self.now = now
    }

    /// The session for `id` (created on first use), with this request counted.
    public func session(for id: String?) -> Session {
        let now = now()
        let id = id ?? Self.defaultID
        let (session, evicted) = list.withLockedValue { list -> (Session, Bool) in
            list.expire(olderThan: now.addingTimeInterval(-idleTimeout))
            if let existing = list.touch(id, at: now) { return (existing, false) }
            let evicted = list.count >= capacity
            if evicted { list.removeLeastRecent() }
            let created = Session(id: id, now: now, historyBytes: historyBytes, clock: clock)
            list.insert(created, at: now)
            return (created, evicted)
        }
        if evicted {
            notice?.hit { "forgot \($0) least recently used session(s) to make room: \(capacity) sessions are kept" }
        }
        session.countRequest()
        return session
    }

    /// The session `id` if it is alive, without counting a request.
    public func existing(_ id: String) -> Session? {
        let cutoff = now().addingTimeInterval(-idleTimeout)
        return list.withLockedValue { list in
            list.expire(olderThan: cutoff)
            return list.peek(id)
        }
    }

    /// The session `id`, created when needed, without counting a request (the control API).
    public func create(_ id: String) -> Session {
        let session = session(for: id)
        session.uncountRequest()
        return session
    }

    /// Forgets the session; its next request starts a new one. False when there was none.
    @discardableResult
    public func remove(_ id: String) -> Bool {
        list.withLockedValue { $0.remove(id) }
    }

    /// Live sessions, by id.
    public var all: [Session] {
        let cutoff = now().addingTimeInterval(-idleTimeout)
        return list.withLockedValue { list in
            list.expire(olderThan: cutoff)
            return list.sessions
        }.sorted { $0.id < $1.id }
    }

    public var count: Int { list.withLockedValue { $0.count } }

    /// Sessions forgotten because the store was full.
    public var evictedCount: Int { notice?.count ?? 0 }
}

/// Sessions by id in a doubly linked list, most recently used first. Not thread-safe: the store
/// holds it under its lock (hence the unchecked Sendable).
struct LRUList: @unchecked Sendable {
    final class Node {
        let session: Session
        var lastSeen: Date
        var newer: Node?
        unowned(unsafe) var older: Node?
        init(session: Session, lastSeen: Date) {
            self.session = session
            self.lastSeen = lastSeen
        }
    }

    private var nodes: [String: Node] = [:]
    private var newest: Node?
    private var oldest: Node?

    var count: Int { nodes.count }
    var sessions: [Session] { nodes.values.map(\.session) }

    mutating func touch(_ id: String, at now: Date) -> Session? {
        guard let node = nodes[id] else { return nil }
        node.lastSeen = now
        unlink(node)
        pushNewest(node)
        return node.session
    }

    mutating func insert(_ session: Session, at now: Date) {
        let node = Node(session: session, lastSeen: now)
        nodes[session.id] = node
        pushNewest(node)
    }

    /// Drops sessions last seen before `cutoff`: they sit at the old end.
    mutating func expire(olderThan cutoff: Date) {
        while let node = oldest, node.lastSeen < cutoff { remove(node) }
    }

    func peek(_ id: String) -> Session? { nodes[id]?.session }

    mutating func remove(_ id: String) -> Bool {
        guard let node = nodes[id] else { return false }
        remove(node)
        return true
    }

    mutating func removeLeastRecent() {
        if let oldest { remove(oldest) }
    }

    private mutating func remove(_ node: Node) {
        unlink(node)
        nodes[node.session.id] = nil
    }

    private mutating func pushNewest(_ node: Node) {
        node.older = newest
        node.newer = nil
        newest?.newer = node
        newest = node
        if oldest == nil { oldest = node }
    }

    private mutating func unlink(_ node: Node) {
        if let newer = node.newer { newer.older = node.older } else { newest = node.older }
        if let older = node.older { older.newer = node.newer } else { oldest = node.newer }
        node.newer = nil
        node.older = nil
    }
}
