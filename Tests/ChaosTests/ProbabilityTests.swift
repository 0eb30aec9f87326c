import Testing
@testable import Chaos

@Suite struct ProbabilityTests {
    func answers(seed: UInt64, session: String = "s1", probability: Double = 0.3, count: Int = 200) throws -> [Bool] {
        let engine = try makeEngine(#"{"id": "p", "match": {"probability": \#(probability), "seed": \#(seed)}, "action": {"status": 500}}"#)
        var state = SessionState(sessionID: session)
        return (0..<count).map { engine.plan(for: segment($0, session: session), state: &state, now: .zero).response != nil }
    }

    @Test func sameAnswersTwice() throws {
        let first = try answers(seed: 7)
        let second = try answers(seed: 7)
        #expect(first == second)
        #expect(first.contains(true) && first.contains(false))
    }

    @Test func seedsAndSessionsDiffer() throws {
        #expect(try answers(seed: 7) != answers(seed: 8))
        #expect(try answers(seed: 7, session: "a") != answers(seed: 7, session: "b"))
    }

    @Test func retriesOfTheSameResourceGetFreshDraws() throws {
        let engine = try makeEngine(#"{"id": "p", "match": {"probability": 0.5, "seed": 1}, "action": {"status": 500}}"#)
        var state = SessionState(sessionID: "s1")
        let attempts = (0..<64).map { _ in engine.plan(for: segment(3), state: &state, now: .zero).response != nil }
        #expect(attempts.contains(true) && attempts.contains(false))
        var again = SessionState(sessionID: "s1")
        #expect((0..<64).map { _ in engine.plan(for: segment(3), state: &again, now: .zero).response != nil } == attempts)
    }

    @Test(arguments: [0.05, 0.3, 0.5, 0.9])
    func rateIsRoughlyP(_ probability: Double) throws {
        let draws = try answers(seed: 12345, probability: probability, count: 10_000)
        let rate = Double(draws.filter { $0 }.count) / Double(draws.count)
        #expect(abs(rate - probability) < 0.03, "rate \(rate) for p = \(probability)")
    }

    @Test func extremes() throws {
        #expect(try answers(seed: 1, probability: 0, count: 100).allSatisfy { !$0 })
        #expect(try answers(seed: 1, probability: 1, count: 100).allSatisfy { $0 })
    }

    @Test func stableHashIsFixed() {
        // The hash must not change between runs or releases (seeded scenarios must replay).
        var hash = StableHash()
        hash.combine("session")
        hash.combine(42)
        #expect(hash.value == 4_898_333_601_144_020_958)
        var same = StableHash()
        same.combine("session")
        same.combine(42)
        #expect(same.value == hash.value)
        var other = StableHash()
        other.combine("sessio")
        other.combine("n")
        other.combine(42)
        #expect(other.value != hash.value)
    }
}
