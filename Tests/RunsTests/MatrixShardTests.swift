import Chaos
import Testing
@testable import Runs

/// `hlschaos matrix --shard I/N`: the slices are disjoint, cover every preset, keep a preset's
/// players together (whole presets), and share the play time evenly.
@Suite struct MatrixShardTests {
    static func scenario(_ name: String, live seconds: Double? = nil) -> Scenario {
        Scenario(name: name, rules: [], play: seconds.map { PlayHint(stream: "live", seconds: $0) })
    }

    static let presets: [Scenario] = (0..<20).map { scenario("vod-\($0)") }
        + [60, 110, 45, 75, 52, 30].enumerated().map { scenario("live-\($0.offset)", live: $0.element) }

    @Test(arguments: [1, 2, 3, 4, 7])
    func slicesAreDisjointCoverEveryPresetAndShareTheTime(count: Int) {
        let slices = (1...count).map { MatrixShard(index: $0, count: count).select(Self.presets, vodSeconds: 30) }
        let names = slices.flatMap { $0.map(\.name) }
        #expect(names.sorted() == Self.presets.map(\.name).sorted(), "every preset exactly once")
        let times = slices.map { $0.reduce(0.0) { $0 + ($1.play?.seconds ?? 30) } }
        // Dealt longest first to the least loaded: no slice is more than the longest preset over another.
        #expect((times.max() ?? 0) - (times.min() ?? 0) <= 110, "\(times)")
        // Each slice keeps the order given.
        for slice in slices {
            let order = slice.map { name in Self.presets.firstIndex { $0.name == name.name }! }
            #expect(order == order.sorted())
        }
    }

    @Test func theSameDealOnEveryMachine() {
        let first = MatrixShard(index: 2, count: 3).select(Self.presets, vodSeconds: 30).map(\.name)
        let again = MatrixShard(index: 2, count: 3).select(Self.presets, vodSeconds: 30).map(\.name)
        #expect(first == again && !first.isEmpty)
    }

    @Test func badShardsSayHowToWriteOne() {
        for (text, message) in [
            ("2", "--shard \"2\" must be I/N, the I-th of N slices, such as 2/4"),
            ("0/4", "--shard 0/4: I must be between 1 and N (4)"),
            ("5/4", "--shard 5/4: I must be between 1 and N (4)"),
            ("1/0", "--shard 1/0: N must be between 1 and 1000"),
            ("a/b", "--shard \"a/b\" must be I/N, the I-th of N slices, such as 2/4"),
        ] {
            guard case .failure(let error) = MatrixShard.parse(text) else { Issue.record("\(text) accepted"); continue }
            #expect(error.description == message)
        }
        #expect(MatrixShard.parse("3/8") == .success(MatrixShard(index: 3, count: 8)))
    }
}
