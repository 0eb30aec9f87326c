/// The deterministic bytes `TestOrigin.Response.generated` serves: byte i is `UInt8(i % 251)`.
/// 251 is prime, so a shifted or dropped block never lines up with the pattern by accident.
public func patternBytes(offset: Int, count: Int) -> [UInt8] {
    guard count > 0 else { return [] }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count)
    var position = offset
    // Copy from a precomputed cycle so that multi-megabyte bodies stay cheap in debug builds.
    while bytes.count < count {
        let start = position % 251
        let take = min(count - bytes.count, PatternCycle.bytes.count - start)
        bytes.append(contentsOf: PatternCycle.bytes[start..<(start + take)])
        position += take
    }
    return bytes
}

private enum PatternCycle {
    /// 251 × 1024 bytes of the pattern, starting at 0.
    static let bytes: [UInt8] = {
        var cycle = [UInt8](repeating: 0, count: 251 * 1024)
        for index in cycle.indices { cycle[index] = UInt8(index % 251) }
        return cycle
    }()
}
