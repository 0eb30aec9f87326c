import Chaos
import Foundation
import PlayerReports
import Records
import Testing
@testable import Verdicts

/// The checks of a player's adaptation to its link passing and failing, with what they say they saw.
@Suite struct AdaptationCheckTests {
    func check(_ check: Expectation.Check, _ run: LinkRun, player: PlayerReport? = nil, link: Bool = true) -> ExpectationResult {
        let verdict = Evaluator.evaluate([Expectation(check)], records: run.traffic.records, reaction: run.reaction, player: player,
                                         live: false, runEnded: run.traffic.at(100), link: link ? run.observation : nil)
        return verdict.results[0]
    }

    @Test func switchedDownAfterTheLinkFell() {
        let run = AdaptationFiguresTests.stepDownAndBack()
        let pass = check(.switchedDownOnLink(within: .seconds(5)), run)
        #expect(pass.passed)
        #expect(pass.check == "switchedDown")
        #expect(pass.observed == "went down 3.4 s after the link fell below variant 2")
        #expect(pass.evidence == [run.segment(at: 32.5), run.traffic.records.first { $0.kind == .media && $0.variant == 0 }?.id,
                                  run.segment(at: 33.6)].compactMap { $0 })
        let late = check(.switchedDownOnLink(within: .seconds(3)), run)
        #expect(!late.passed)
        #expect(late.observed == "went down 3.4 s after the link fell below variant 2; expected within 3.0 s")
        #expect(check(.switchedDownOnLink(within: nil), run).passed)
    }

    @Test func switchedUpAfterTheLinkRecovered() {
        let run = AdaptationFiguresTests.stepDownAndBack()
        let pass = check(.switchedUpOnLink(within: .seconds(15)), run)
        #expect(pass.passed)
        #expect(pass.observed == "back up 11.0 s after the link recovered")
        let late = check(.switchedUpOnLink(within: .seconds(10)), run)
        #expect(!late.passed && late.observed == "back up 11.0 s after the link recovered; expected within 10.0 s")
    }

    @Test func everyFallOfASquareWaveIsJudged() {
        let run = AdaptationFiguresTests.squareWave()
        let late = check(.switchedDownOnLink(within: .seconds(5)), run)
        #expect(!late.passed)
        #expect(late.observed == "1 of 3 falls of the link below the variant in use not answered in time: "
            + "at 30.0 s: went down 6.0 s after the link fell below variant 2; expected within 5.0 s")
        let held = check(.switchedDownOnLink(within: .seconds(6)), run)
        #expect(held.passed)
        #expect(held.observed.hasPrefix("all 3 falls of the link below the variant in use answered: at 10.0 s: went down 2.0 s after"))
        #expect(check(.switchedUpOnLink(within: .seconds(5)), run).passed)
        #expect(!check(.switchedUpOnLink(within: .seconds(2)), run).passed)
    }

    /// A dip the link recovered from before `within` ran out needed no down-switch; without
    /// `within`, every fall needs one.
    @Test func aShortFallNeedsNoSwitchWithinItsTime() {
        var run = LinkRun(steps: [(0, 4_000_000), (30, 600_000), (31, 4_000_000)], until: 60)
        run.play([(0, 2)], end: 60)
        let held = check(.switchedDownOnLink(within: .seconds(5)), run)
        #expect(held.passed && held.observed == "did not go down in the 1.0 s the link stayed below variant 2")
        let strict = check(.switchedDownOnLink(within: nil), run)
        #expect(!strict.passed && strict.observed == "did not go down in the 1.0 s the link stayed below variant 2")
        let up = check(.switchedUpOnLink(within: nil), run)
        #expect(!up.passed)
        #expect(up.observed == "the player was not below the variant it had been on when the link recovered (nothing to go back up from)")
        #expect(!check(.not(.switchedUpOnLink(within: nil)), run).passed, "not judged: its negation fails too")
    }

    @Test func aPlayerThatStaysOnThroughALongFallFails() {
        var run = LinkRun(steps: [(0, 4_000_000), (30, 600_000)], until: 60)
        run.play([(0, 2)], end: 60)
        let result = check(.switchedDownOnLink(within: .seconds(10)), run)
        #expect(!result.passed)
        #expect(result.observed == "did not go down in the 28.6 s the link stayed below variant 2; expected within 10.0 s")
        #expect(check(.not(.switchedDownOnLink(within: .seconds(10))), run).passed)
    }

    @Test func withoutALinkTheLinkChecksAreNotJudged() {
        let run = AdaptationFiguresTests.stepDownAndBack()
        for linkCheck: Expectation.Check in [.switchedDownOnLink(within: nil), .switchedUpOnLink(within: nil),
                                             .utilisation(atLeast: 0.1, atMost: nil), .overshoot(atMost: .seconds(60))] {
            let result = check(linkCheck, run, link: false)
            #expect(!result.passed && result.observed == "the session had no link (the check needs the link's history)")
            #expect(!check(.not(linkCheck), run, link: false).passed)
        }
        // The records and the player's report are enough for these.
        #expect(check(.switches(atLeast: nil, atMost: 2, perMinute: false), run, link: false).passed)
        #expect(check(.stalls(atLeast: nil, atMost: 2), run, player: AdaptationFiguresTests.stalls, link: false).passed)
        let verdict = Evaluator.evaluate([], records: run.traffic.records, reaction: run.reaction, player: nil, live: false,
                                         runEnded: run.traffic.at(100))
        #expect(verdict.adaptation == nil)
        #expect(verdict.summary == "no expectations to check (passed) (no fault was injected)")
    }

    @Test func aLinkThatNeverFellHasNothingToJudge() {
        var run = LinkRun(steps: [(0, 4_000_000)], until: 60)
        run.play([(0, 1)], end: 60)
        let down = check(.switchedDownOnLink(within: nil), run)
        #expect(!down.passed)
        #expect(down.observed == "the link never fell below the variant in use for 1.0 s or more while the player fetched segments (nothing to go down from)")
        #expect(!check(.not(.switchedDownOnLink(within: nil)), run).passed)
        var silent = LinkRun(steps: [(0, 4_000_000)], until: 60)
        silent.traffic.start(variant: 1)
        #expect(check(.utilisation(atLeast: 0.1, atMost: nil), silent).observed == "no variant segment was requested")
        #expect(check(.switches(atLeast: nil, atMost: 3, perMinute: false), silent).observed == "no variant segment was requested")
    }

    @Test func switchesCountedAndPerMinute() {
        let run = AdaptationFiguresTests.squareWave()
        let many = check(.switches(atLeast: nil, atMost: 4, perMinute: false), run)
        #expect(!many.passed)
        #expect(many.observed == "5 switches in 57.9 s (5.19 a minute): down 2→0, up 0→2, down 2→0, up 0→2, down 2→0")
        #expect(check(.switches(atLeast: nil, atMost: 5, perMinute: false), run).passed)
        #expect(check(.switches(atLeast: nil, atMost: 6, perMinute: true), run).passed)
        #expect(!check(.switches(atLeast: nil, atMost: 5, perMinute: true), run).passed)
        #expect(!check(.switches(atLeast: 6, atMost: nil, perMinute: true), run).passed)
        var still = LinkRun(steps: [(0, 4_000_000)], until: 60)
        still.play([(0, 1)], end: 60)
        let none = check(.switches(atLeast: nil, atMost: 0, perMinute: false), still)
        #expect(none.passed && none.observed == "no switch: variant 1 throughout")
    }

    @Test func stallsFromThePlayersReport() {
        let run = AdaptationFiguresTests.stepDownAndBack()
        let two = check(.stalls(atLeast: nil, atMost: 1), run, player: AdaptationFiguresTests.stalls)
        #expect(!two.passed)
        #expect(two.observed == "2 stalls, 4.1 s in all (at 31.0 s for 1.5 s, at 33.0 s for 2.6 s) (the player's report)")
        #expect(check(.stalls(atLeast: nil, atMost: 2), run, player: AdaptationFiguresTests.stalls).passed)
        let none = check(.stalls(atLeast: nil, atMost: 0), run, player: PlayerReport(player: "hlsjs", outcome: .played))
        #expect(none.passed && none.observed == "no stall (the player's report)")
        let unjudged = check(.stalls(atLeast: nil, atMost: 0), run)
        #expect(!unjudged.passed && unjudged.observed == "no player report, and no request carried CMCD")
        #expect(!check(.not(.stalls(atLeast: nil, atMost: 0)), run).passed)
    }

    @Test func utilisationAgainstItsBounds() {
        let run = AdaptationFiguresTests.stepDownAndBack()
        let held = check(.utilisation(atLeast: 0.8, atMost: nil), run)
        #expect(held.passed)
        #expect(held.observed == "used 81 % of the link over 88.8 s of fetching; the capacity counted up to the top variant's 1.6 Mbps")
        #expect(!check(.utilisation(atLeast: 0.81, atMost: nil), run).passed)
        #expect(!check(.utilisation(atLeast: nil, atMost: 0.8), run).passed)
    }

    @Test func overshootAgainstItsBound() {
        let run = AdaptationFiguresTests.stepDownAndBack()
        let held = check(.overshoot(atMost: .seconds(4)), run)
        #expect(held.passed && held.observed == "3.4 s on a variant the link could not carry (of 88.8 s of fetching)")
        #expect(!check(.overshoot(atMost: .seconds(3)), run).passed)
        var never = LinkRun(steps: [(0, 4_000_000)], until: 60)
        never.play([(0, 2)], end: 60)
        #expect(check(.overshoot(atMost: .zero), never).observed == "never on a variant the link could not carry (of 58.1 s of fetching)")
    }

    @Test func theVerdictCarriesTheFiguresAndTheReactionWordsStateThem() {
        let run = AdaptationFiguresTests.stepDownAndBack()
        let player = AdaptationFiguresTests.stalls
        let verdict = Evaluator.evaluate([Expectation(.stalls(atLeast: nil, atMost: 2))], records: run.traffic.records, reaction: run.reaction,
                                         player: player, live: false, runEnded: run.traffic.at(100), link: run.observation)
        let figures = run.figures(player: player)
        #expect(verdict.adaptation == figures)
        #expect(verdict.summary == "the expectation held", "a link is something done to the session: no \"no fault was injected\"")
        #expect(run.reaction.firstFault == nil)
        #expect(ReactionWords.summary(reaction: run.reaction, player: player, adaptation: verdict.adaptation)
            == ReactionWords.playerSide(player) + "; " + figures.words,
            "a link without a rule's fault: its figures, not the words for faults (\"no fault injected\", \"still failing\")")
        // A rule's fault beside the link: the reaction to it is told first, as without a link.
        var faulted = run.reaction
        faulted.firstFault = .init(record: 1, time: run.traffic.at(10), resource: .init(kind: .segment, path: "/v2/seg.ts"),
                                   status: 503, ending: .complete, actions: [])
        #expect(ReactionWords.summary(reaction: faulted, player: player, adaptation: verdict.adaptation)
            == ReactionWords.proxySide(faulted) + "; " + ReactionWords.playerSide(player) + "; " + figures.words)
    }
}
