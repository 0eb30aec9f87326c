import Addressing
import Chaos
import Foundation
import NIOHTTP1
import Records
import Testing
import Upstream

@testable import Proxy

/// One request's state, driven by events without a socket or curl: what it records, what it asks
/// the data plane to do, and that its ending is set once.
@Suite struct RequestStateMachineTests {
    let head = HTTPRequestHead(
        version: .http1_1, method: .GET, uri: "/s/tv1/~seg.v2.n42/http/origin/seg42.ts",
        headers: ["range": "bytes=0-99", "user-agent": "tester", "accept": "*/*"])

    @Test func anUntouchedRequestRecordsWhatItIsAndWhatWasSent() throws {
        let arrived = Date(timeIntervalSince1970: 1_000)
        let start = ContinuousClock.now
        var request = RequestStateMachine(arrived: arrived, started: start)
        request.addressed(session: "tv1", tag: ResourceTag(kind: .segment, variant: 2, msn: 42))
        request.fetching("http://origin/seg42.ts")
        try request.headSent(.partialContent, fields: ResponseFields(["content-type": "video/mp2t", "content-length": "100", "etag": "x"] as HTTPHeaders))
        request.bodySent(60)
        request.bodySent(40)
        let record = request.record(head: head, client: "10.0.0.2:5000", now: start + .milliseconds(250))
        #expect(record.session == "tv1")
        #expect(record.kind == .segment)
        #expect(record.variant == 2 && record.msn == 42)
        #expect(record.time == arrived)
        #expect(record.client == "10.0.0.2:5000")
        #expect(record.path == head.uri)
        #expect(record.status == 206)
        #expect(record.bytesSent == 100)
        #expect(record.ending == .complete)
        #expect(abs(record.duration - 0.25) < 0.001)
        #expect(record.upstream?.url == "http://origin/seg42.ts")
        #expect(record.actions.isEmpty && record.matchedRules.isEmpty)
        // Only the headers a record keeps, in the order it keeps them.
        #expect(record.responseHeaders.map(\.name) == ["content-type", "content-length"])
        #expect(record.requestHeaders.map(\.name) == ["range", "user-agent"])
    }

    /// Whatever order and case the response had them in: the record's order, each name once, the
    /// first value of a repeated one.
    @Test func recordedResponseHeadersAreTheFirstOfEachInTheRecordsOrder() throws {
        var request = RequestStateMachine()
        try request.headSent(.found, fields: ResponseFields([
            "X-Hlschaos-Fault": "a/1", "Cache-Control": "no-store", "Content-Length": "7", "content-type": "text/plain",
            "Content-Type": "text/html", "Location": "/next", "Retry-After": "3", "location": "/other",
        ] as HTTPHeaders))
        #expect(request.sent.headers.map(\.name) == ["content-type", "content-length", "location", "retry-after", "x-hlschaos-fault"])
        #expect(request.sent.headers.map(\.value) == ["text/plain", "7", "/next", "3", "a/1"])
    }

    @Test func aSecondResponseHeadIsRefused() throws {
        var request = RequestStateMachine()
        try request.headSent(.ok, fields: ResponseFields())
        #expect(throws: RequestStateMachine.SecondResponse.self) { try request.headSent(.serviceUnavailable, fields: ResponseFields()) }
        #expect(request.sent.status == 200)
    }

    @Test func theFirstEndingStands() {
        var request = RequestStateMachine()
        request.end(.hang)
        // The client then gives up on the hang: still a hang.
        request.failed(connectionOpen: false)
        request.end(.truncated)
        #expect(request.record(head: head, client: "").ending == .hang)
        #expect(request.finish(head: head, client: "").ending == .hang, "finishing does not overwrite the ending")
        var untouched = RequestStateMachine()
        #expect(untouched.finish(head: head, client: "").ending == .complete)
        #expect(untouched.ending == .complete)
    }

    @Test func aRequestThatFailsIsAClientAbortOrAClose() {
        var gone = RequestStateMachine()
        gone.failed(connectionOpen: false)
        #expect(gone.ending == .clientAbort)
        var closed = RequestStateMachine()
        closed.failed(connectionOpen: true)
        #expect(closed.ending == .closed)
        #expect(RequestStateMachine().record(head: head, client: "").ending == .complete)
    }

    @Test func anUpstreamFailureBecomesTheProxysAnswer() throws {
        let url = "http://origin/seg42.ts"
        func failure(_ error: UpstreamError) -> (any Error, RequestStateMachine) {
            var request = RequestStateMachine()
            request.fetching(url)
            return (request.upstreamFailed(error), request)
        }
        let (timeout, timedOut) = failure(.timeout(url: url, phase: .firstByte, message: "slow"))
        #expect((timeout as? Refusal)?.status == .gatewayTimeout)
        #expect(timedOut.upstream?.error?.isEmpty == false)
        let (broken, _) = failure(.connect(url: url, message: "refused"))
        #expect((broken as? Refusal)?.status == .badGateway)
        let body = try #require(broken as? Refusal).body
        #expect(String(decoding: body, as: UTF8.self).hasPrefix("hlschaos: upstream failed: "))
        let (guarded, _) = failure(.refusedAddress(url: url, address: "127.0.0.1", reason: "a listener of this process"))
        #expect((guarded as? Refusal)?.status == .forbidden)
        let (cancelled, left) = failure(.cancelled)
        #expect(cancelled is CancellationError)
        #expect(left.upstream?.error == nil)
    }

    @Test func aBodyThatBreaksAfterTheHeadEndsTheConnection() {
        var request = RequestStateMachine()
        request.fetching("http://origin/seg42.ts")
        #expect(request.upstreamBodyFailed(.transfer(url: "http://origin/seg42.ts", message: "reset by peer")) == .closeConnection)
        #expect(request.ending == .truncated)
        #expect(request.upstream?.error?.contains("reset by peer") == true)
        var leaving = RequestStateMachine()
        #expect(leaving.upstreamBodyFailed(.cancelled) == .cancelled)
        #expect(leaving.ending == nil)
    }

    @Test func theDeviceURLStandsForTheTargetInsideATunnel() {
        var request = RequestStateMachine()
        request.asked(for: "https://cdn.example/live/master.m3u8")
        request.addressed(session: nil, tag: nil)
        let record = request.record(head: HTTPRequestHead(version: .http1_1, method: .GET, uri: "/live/master.m3u8"), client: "")
        #expect(record.path == "https://cdn.example/live/master.m3u8")
        #expect(record.session == SessionStore.defaultID)
        #expect(record.kind == nil)
    }

    @Test func thePlanAndItsRulesAreRecorded() {
        var request = RequestStateMachine()
        request.addressed(session: "tv1", tag: ResourceTag(kind: .segment, msn: 7))
        let rule = RuleReference(scenario: "s", id: "r")
        request.planned(FaultPlan(response: .status(code: 503, headers: [], body: nil), responseRule: rule, matchedRules: [rule]))
        let record = request.record(head: head, client: "")
        #expect(record.matchedRules == ["s/r"])
        #expect(record.decidingRules.response == "s/r")
        #expect(record.actions.count == 1)
    }

    @Test func aConnectAnsweredByTheNextHandlersCountsAsAnswered() {
        var request = RequestStateMachine()
        request.admitted(session: "phone")
        request.answeredByConnection(.ok)
        let record = request.record(head: HTTPRequestHead(version: .http1_1, method: .CONNECT, uri: "cdn.example:443"), client: "")
        #expect(record.status == 200)
        #expect(record.session == "phone")
        #expect(record.method == "CONNECT")
    }
}
