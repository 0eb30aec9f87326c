import Foundation

/// The leaves made so far, by the names they were made for, least recently used dropped first
/// once `capacity` are kept. A leaf that is about to expire counts as absent.
struct LeafCache {
    let capacity: Int
    /// A leaf within this long of its end is made anew rather than served.
    static let renewBefore: TimeInterval = 86_400

    private var entries: [[LeafName]: (leaf: IssuedLeaf, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var count: Int { entries.count }

    mutating func leaf(for names: [LeafName], now: Date) -> IssuedLeaf? {
        guard let entry = entries[names] else { return nil }
        guard entry.leaf.notAfter > now + Self.renewBefore else {
            entries[names] = nil
            return nil
        }
        clock += 1
        entries[names] = (entry.leaf, clock)
        return entry.leaf
    }

    /// Keeps `leaf`, unless another caller kept one for the same names meanwhile: the one kept is returned.
    mutating func keep(_ leaf: IssuedLeaf, for names: [LeafName], now: Date) -> IssuedLeaf {
        if let existing = self.leaf(for: names, now: now) { return existing }
        if entries.count >= capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            // A linear scan: cheap next to the key generation and signature that a miss costs anyway.
            entries[oldest.key] = nil
        }
        clock += 1
        entries[names] = (leaf, clock)
        return leaf
    }
}
