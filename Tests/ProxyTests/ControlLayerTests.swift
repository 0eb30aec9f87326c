import Chaos
import Foundation
import Proxy
import Testing
import TestSupport

/// Scenarios set while the proxy runs (what the control API does): per session, for every
/// session, replaced and cleared, each on the next request.
@Suite struct ControlLayerTests {
    static func scenario(_ name: String, _ rules: String) throws -> Scenario {
        try RuleDecoder.decode(Array(#"{"name": "\#(name)", "description": "d", "rules": [\#(rules)]}"#.utf8), file: name)
    }

    @Test func aSessionScenarioAppliesToThatSessionOnly() async throws {
        try await WireFaultTests.withFixture(WireFaultTests.scenario(#"{"id": "noop", "match": {"kind": "key"}, "action": {"delay": "1ms"}}"#)) { proxy, origin in
            let port = origin.port
            let fail = try Self.scenario("api", #"{"id": "s503", "match": {"kind": "segment", "msn": 2}, "action": {"status": 503}}"#)
            proxy.server.control.openSession("tv1", scenario: fail)
            #expect(try await proxy.get(HLSFixture.segmentPath(port: port, variant: 0, msn: 2, session: "tv1")).status == 503)
            #expect(try await proxy.get(HLSFixture.segmentPath(port: port, variant: 0, msn: 2, session: "tv2")).status == 200)
            #expect(proxy.server.control.session("tv1")?.scenario == "api")

            // Replaced: the new scenario counts its requests from zero.
            let second = try Self.scenario("api2", #"{"id": "second", "match": {"kind": "segment", "requests": 2}, "action": {"status": 404}}"#)
            #expect(proxy.server.control.setScenario(second, session: "tv1") != nil)
            let statuses = [
                try await proxy.get(HLSFixture.segmentPath(port: port, variant: 0, msn: 2, session: "tv1")).status,
                try await proxy.get(HLSFixture.segmentPath(port: port, variant: 0, msn: 2, session: "tv1")).status,
            ]
            #expect(statuses == [200, 404])

            // Cleared.
            #expect(proxy.server.control.setScenario(nil, session: "tv1") != nil)
            #expect(try await proxy.get(HLSFixture.segmentPath(port: port, variant: 0, msn: 2, session: "tv1")).status == 200)
            #expect(proxy.server.control.setScenario(fail, session: "nobody") == nil, "no such session")
        }
    }

    @Test func aScenarioForEverySessionStartsItsClockWhenSet() async throws {
        let clock = ManualChaosClock()
        try await TestOrigin.with { origin in
            HLSFixture.install(on: origin)
            try await ProxyHarness.with(upstreamURL: origin.baseURL, clock: clock) { proxy in
                let port = origin.port
                let segment = HLSFixture.segmentPath(port: port, variant: 0, msn: 1, session: "tv")
                #expect(try await proxy.get(segment).status == 200)  // the session begins
                clock.advance(.seconds(60))
                let later = try Self.scenario("everyone", #"{"id": "w", "match": {"kind": "segment", "after": "10s"}, "action": {"status": 500}}"#)
                proxy.server.control.setScenarioForEverySession(later)
                #expect(try await proxy.get(segment).status == 200, "60 s into the session, but 0 s into the scenario")
                clock.advance(.seconds(11))
                #expect(try await proxy.get(segment).status == 500)
                #expect(try await proxy.get(HLSFixture.segmentPath(port: port, variant: 0, msn: 1, session: "other")).status == 500)
                proxy.server.control.setScenarioForEverySession(nil)
                #expect(try await proxy.get(segment).status == 200)
            }
        }
    }
}
