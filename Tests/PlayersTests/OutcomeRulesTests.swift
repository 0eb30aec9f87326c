import Foundation
import PlayerReports
import Testing
@testable import Players
import TestSupport

@Suite struct StallsTests {
    static func samples(_ pairs: [(Double, Double)]) -> [ProgressSample] {
        pairs.map { ProgressSample(time: $0.0, position: $0.1) }
    }

    @Test func aGapLongerThanTheThresholdIsAStall() {
        // Live ffmpeg: a progress block every 2 s, then nothing new from 10 s to 20 s.
        let samples = Self.samples([(1, 0.04), (3, 5.84), (5, 7.84), (7, 9.84), (9, 11.84), (10, 11.84), (20, 13.84), (22, 15.84)])
        let stalls = Stalls.detect(samples, end: 23, threshold: 6)
        #expect(stalls == [.init(at: 9, duration: 11)])
        #expect(Stalls.ongoing(stalls, end: 23) == nil)
    }

    @Test func aStallStillGoingAtTheEndLastsUntilTheEnd() {
        let samples = Self.samples([(1, 0.04), (2, 4), (3, 8), (4, 15.4), (9, 15.4)])
        let stalls = Stalls.detect(samples, end: 20, threshold: 6)
        #expect(stalls == [.init(at: 4, duration: 16)])
        #expect(Stalls.ongoing(stalls, end: 20) == .init(at: 4, duration: 16))
    }

    @Test func gapsUnderTheThresholdAndStartupAreNotStalls() {
        let samples = Self.samples([(4, 0), (5, 0), (8, 2), (13, 4), (18, 6)])
        #expect(Stalls.detect(samples, end: 20, threshold: 6).isEmpty)
        // Never advanced: no stall (the verdict says "nothing played" instead).
        #expect(Stalls.detect(Self.samples([(1, 0), (19, 0)]), end: 20, threshold: 6).isEmpty)
        // Samples without a time (a pasted log) are ignored.
        #expect(Stalls.detect([ProgressSample(time: nil, position: 3)], end: 20).isEmpty)
    }
}

@Suite struct OutcomeRulesTests {
    static func facts(positions: [Double] = [], ended: Bool = false, fatal: String? = nil, errors: [String] = []) -> LogFacts {
        var facts = LogFacts()
        facts.progress = positions.enumerated().map { ProgressSample(time: Double($0.offset), position: $0.element) }
        facts.ended = ended
        facts.fatal = fatal
        facts.errors = errors.map { PlayerReport.PlayerError(kind: "error", message: $0) }
        return facts
    }

    func decide(
        live: Bool = false, timedOut: Bool = false, exitStatus: Int32? = 0, facts: LogFacts,
        stall: PlayerReport.Stall? = nil
    ) -> (PlayerReport.Outcome, String?) {
        let verdict = OutcomeRules(live: live, timeout: 20, timedOut: timedOut, exitStatus: exitStatus, facts: facts, ongoingStall: stall).decide()
        return (verdict.outcome, verdict.reason)
    }

    @Test func aVODThatReachedTheEndPlayed() {
        #expect(decide(facts: Self.facts(positions: [1, 24], ended: true)) == (.played, nil))
    }

    @Test func aFatalErrorFailsWhateverElseHappened() {
        let result = decide(facts: Self.facts(positions: [1, 24], ended: true, fatal: "souphttpsrc0: Not Found"))
        #expect(result == (.failed, "souphttpsrc0: Not Found"))
    }

    @Test func aFailureStatusFailsWithTheLastError() {
        let result = decide(exitStatus: 1, facts: Self.facts(errors: ["url: Server returned 404 Not Found"]))
        #expect(result == (.failed, "exit status 1 (last error: url: Server returned 404 Not Found)"))
    }

    @Test func nothingPlayedNeverPasses() {
        #expect(decide(facts: Self.facts(ended: true)).0 == .failed)
        #expect(decide(timedOut: true, exitStatus: nil, facts: Self.facts()) == (.stalled, "nothing played within the 20 s limit"))
        #expect(decide(live: true, timedOut: true, exitStatus: nil, facts: Self.facts(positions: [0])).0 == .stalled)
    }

    @Test func atTheTimeLimitLiveThatKeptPlayingPlayedAndVODTimedOut() {
        let advancing = Self.facts(positions: [1, 5, 9])
        #expect(decide(live: true, timedOut: true, exitStatus: nil, facts: advancing) == (.played, nil))
        let vod = decide(timedOut: true, exitStatus: nil, facts: advancing)
        #expect(vod.0 == .timedOut)
        #expect(vod.1 == "still playing at 9 s of media when the 20 s limit ran out")
    }

    @Test func atTheTimeLimitAStallStillGoingIsStalled() {
        let result = decide(live: true, timedOut: true, exitStatus: nil, facts: Self.facts(positions: [1, 15.4]), stall: .init(at: 4, duration: 16))
        #expect(result == (.stalled, "no progress for the last 16 s, at 15.4 s of media"))
    }

    @Test func stoppingBeforeTheEndFails() {
        let result = decide(facts: Self.facts(positions: [1, 6]))
        #expect(result == (.failed, "stopped at 6 s of media without reaching the end"))
    }
}

@Suite struct ReportLogTests {
    @Test func theReportKeepsTheEndOfALongLog() {
        let lines = (0..<10_000).map { LogLine("line \($0) " + String(repeating: "x", count: 40)) }
        let text = ReportLog.text(lines, limit: 4096)
        #expect(text.utf8.count < 4096 + 200)
        #expect(text.hasPrefix("[hlschaos: the first "))
        #expect(text.hasSuffix("line 9999 " + String(repeating: "x", count: 40) + "\n"))
        #expect(ReportLog.text([LogLine("short")]) == "short\n")
    }

    @Test func splittingHandlesCarriageReturnsAndEraseSequences() {
        let lines = LogLine.split("a\r\u{1B}[Kb\r\nc\n\nd")
        #expect(lines.map(\.text) == ["a", "b", "c", "d"])
    }

    @Test func theTailReadsWhatIsAppendedWithTimes() throws {
        try withTemporaryFolder("tail") { folder in
            let path = try folder.file("log", "one\ntw")
            let tail = LogTail(path: path, start: Date())
            #expect(tail.poll().map(\.text) == ["one"])
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("o\rthree".utf8))
            try handle.close()
            #expect(tail.poll().map(\.text) == ["two"])
            #expect(tail.finish().map(\.text) == ["three"])
            #expect(tail.allLines.map(\.text) == ["one", "two", "three"])
            #expect(tail.allLines.allSatisfy { $0.time != nil })
        }
    }
}
