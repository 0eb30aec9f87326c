import Chaos
@testable import Proxy
import Records
import Testing

/// A fault plan becomes the record's actions: each with its values and the rule that decided it.
@Suite struct RecordValuesTests {
    static let delayRule = RuleReference(scenario: "slow", id: "all")
    static let responseRule = RuleReference(scenario: "net", id: "fault")
    static let gapRule = RuleReference(scenario: "gap", id: "top")

    @Test func everyWireActionKeepsItsValues() {
        let cases: [(WireAction, RequestRecord.Action.Kind, String)] = [
            (.status(code: 503, headers: [], body: nil), .status(503), "status 503"),
            (.hang(nil), .hang(seconds: nil), "hang"),
            (.hang(.seconds(60)), .hang(seconds: 60), "hang 60s"),
            (.throttle(bytesPerSecond: 37_500), .throttle(bytesPerSecond: 37_500), "throttle 37500 B/s"),
            (.stall(afterBytes: 1000, duration: .milliseconds(1500)), .stall(afterBytes: 1000, seconds: 1.5), "stall 1.5s after 1000 bytes"),
            (.reset(.beforeHeaders), .reset(.beforeHeaders), "reset before headers"),
            (.reset(.afterBytes(10)), .reset(.afterBytes(10)), "reset after 10 bytes"),
            (.truncate(.afterBytes(50)), .truncate(.afterBytes(50)), "truncate after 50 bytes"),
            (.truncate(.fraction(0.5)), .truncate(.fraction(0.5)), "truncate at 0.5 of the body"),
            (.corrupt(bytes: 16, seed: 7), .corrupt(bytes: 16), "corrupt 16 bytes"),
            (.contentType("text/plain"), .contentType("text/plain"), "content-type text/plain"),
            (.redirect(status: 302, hops: 3, loop: false), .redirect(status: 302, hops: 3, loop: false), "redirect 302 × 3"),
            (.rejectRanges, .rejectRanges, "reject ranges (501)"),
        ]
        for (wire, kind, words) in cases {
            let actions = RecordValues.actions(FaultPlan(response: wire, responseRule: Self.responseRule))
            #expect(actions == [.init(kind, rule: "net/fault")])
            #expect(actions.first?.words == words)
        }
    }

    @Test func theDelayComesFirstThenTheResponseThenTheContent() {
        let plan = FaultPlan(
            delay: .milliseconds(2500), delayRule: Self.delayRule, response: .status(code: 404, headers: [], body: nil),
            responseRule: Self.responseRule, content: [ContentStep(rule: Self.gapRule, action: .gap(status: 404))])
        #expect(RecordValues.actions(plan) == [
            .init(.delay(seconds: 2.5), rule: "slow/all"), .init(.status(404), rule: "net/fault"), .init(.content("gap"), rule: "gap/top"),
        ])
        #expect(RecordValues.actions(FaultPlan()).isEmpty)
    }
}
