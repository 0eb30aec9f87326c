import Chaos

/// One of N disjoint slices of a matrix (`hlschaos matrix --shard I/N`), so that a CI system's job
/// matrix spreads the cells over machines and `--from-json` merges the slices' matrix.json files.
///
/// A slice is a set of whole presets (rows): every player of a preset runs in the same slice, so
/// the merge, which takes a preset's row from one matrix, loses nothing. Presets are dealt by
/// their expected time (a live preset plays for its `play.for`, a VOD one about `vodSeconds`), the
/// longest first, each to the slice with the least time so far: every machine gets about the same
/// share, and every machine computes the same deal from the same presets.
public struct MatrixShard: Sendable, Equatable, CustomStringConvertible {
    /// 1-based.
    public var index: Int
    public var count: Int

    public static let maximumCount = 1000

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// "I/N" with 1 ≤ I ≤ N ≤ 1000; the message says what is wrong and how to write it.
    public static func parse(_ text: String) -> Result<MatrixShard, ShardError> {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            return .failure(ShardError("--shard \"\(text)\" must be I/N, the I-th of N slices, such as 2/4"))
        }
        guard (1...maximumCount).contains(count) else {
            return .failure(ShardError("--shard \(text): N must be between 1 and \(maximumCount)"))
        }
        guard (1...count).contains(index) else {
            return .failure(ShardError("--shard \(text): I must be between 1 and N (\(count))"))
        }
        return .success(MatrixShard(index: index, count: count))
    }

    /// The presets of this slice, in the order given.
    public func select(_ scenarios: [Scenario], vodSeconds: Double) -> [Scenario] {
        let estimated = scenarios.enumerated().map { offset, scenario in
            (offset, scenario.play?.stream.map { $0 == "vod" } == false ? (scenario.play?.seconds ?? vodSeconds) : vodSeconds)
        }
        var load = [Double](repeating: 0, count: count)
        var slice = Set<Int>()
        for (offset, seconds) in estimated.sorted(by: { ($0.1, $1.0) > ($1.1, $0.0) }) {
            let bin = load.indices.min { (load[$0], $0) < (load[$1], $1) }!
            load[bin] += seconds
            if bin == index - 1 { slice.insert(offset) }
        }
        return scenarios.enumerated().filter { slice.contains($0.offset) }.map(\.element)
    }

    public var description: String { "\(index)/\(count)" }
}

public struct ShardError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
