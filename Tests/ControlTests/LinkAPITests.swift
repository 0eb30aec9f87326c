@testable import Control
import Foundation
import Proxy
import Testing
import TestSupport

/// A session's link through the control API: `GET`/`PUT`/`DELETE /api/sessions/{id}/link` and
/// `POST …/link/cut`, against a real proxy and the demo origin. Rates and delivery over time are
/// measured in ProxyTests' LinkThroughProxyTests; here: what is set, where from, what is refused.
@Suite struct LinkAPITests {
    @Test func aSessionsOwnLinkIsSetShownRefusedWhenBadAndCleared() async throws {
        let harness = try await ControlHarness.start()
        try await harness.use { harness in
            let api = harness.api
            #expect(try await api.send("POST", "/api/sessions", json: #"{"id": "tv1"}"#).status == 201)

            let none = try await api.get("/api/sessions/tv1/link")
            #expect(none.status == 200, "\(none.text)")
            #expect(none.object?["status"] as? String == "none")
            #expect(none.object?["own"] as? Bool == false)
            #expect((none.object?["history"] as? [String: Any])?["capacity"] as? [Int] == [])

            let set = try await api.send("PUT", "/api/sessions/tv1/link", json: #"{"profile": "slow-3g"}"#)
            #expect(set.status == 200, "\(set.text)")
            #expect(set.object?["status"] as? String == "running")
            #expect(set.object?["from"] as? String == "the control API")
            #expect(set.object?["own"] as? Bool == true)
            #expect(set.object?["profile"] as? String == "slow-3g")
            #expect(set.object?["capacity"] as? Int == 400_000)
            #expect((set.object?["latency"] as? [String: Any])?["base"] as? Double == 2.0)
            // The spec echoed, every value written out: sent back, it sets the same link.
            let spec = try #require(set.object?["spec"] as? [String: Any])
            #expect(spec["profile"] as? String == "slow-3g" && spec["rate"] as? String == "400kbps", "\(spec)")
            #expect((spec["latency"] as? [String: Any])?["base"] as? String == "2s")
            let echoed = String(decoding: try JSONSerialization.data(withJSONObject: spec), as: UTF8.self)
            #expect(try await api.send("PUT", "/api/sessions/tv1/link", json: echoed).status == 200)
            #expect(try await api.get("/api/sessions/tv1/link").object?["capacity"] as? Int == 400_000)

            // Every problem, with its path; the running link is kept.
            let bad = try await api.send("PUT", "/api/sessions/tv1/link", json: #"{"rate": "fast", "latency": {"base": "-1s"}}"#)
            #expect(bad.status == 400)
            let paths = (bad.object?["problems"] as? [[String: Any]])?.compactMap { $0["path"] as? String } ?? []
            #expect(paths.contains("$.rate") && paths.contains("$.latency.base"), "\(bad.text)")
            #expect(try await api.get("/api/sessions/tv1/link").object?["profile"] as? String == "slow-3g")

            let cut = try await api.send("POST", "/api/sessions/tv1/link/cut", json: #"{"for": "2s"}"#)
            #expect(cut.status == 200, "\(cut.text)")
            for body in [#"{}"#, #"{"for": "2h"}"#, #"{"for": "soon"}"#, #"{"for": "2s", "at": "1s"}"#] {
                let refused = try await api.send("POST", "/api/sessions/tv1/link/cut", json: body)
                #expect(refused.status == 400, "\(body): \(refused.text)")
            }

            let cleared = try await api.delete("/api/sessions/tv1/link")
            #expect(cleared.status == 200)
            #expect(cleared.object?["status"] as? String == "none")
            #expect(cleared.object?["own"] as? Bool == false)
            let nothingToCut = try await api.send("POST", "/api/sessions/tv1/link/cut", json: #"{"for": "2s"}"#)
            #expect(nothingToCut.status == 409, "\(nothingToCut.text)")

            for (method, path) in [("GET", "/api/sessions/nobody/link"), ("PUT", "/api/sessions/nobody/link"),
                                   ("DELETE", "/api/sessions/nobody/link"), ("POST", "/api/sessions/nobody/link/cut")] {
                let body = method == "POST" ? #"{"for": "2s"}"# : #"{"rate": "1Mbps"}"#
                let response = try await api.send(method, path, json: body)
                #expect(response.status == 404, "\(method) \(path): \(response.text)")
            }
        }
    }

    @Test func aLadderRelativeLinkWaitsForTheMasterAndRunsOnItsBandwidths() async throws {
        let harness = try await ControlHarness.start()
        try await harness.use { harness in
            let api = harness.api
            #expect(try await api.send("POST", "/api/sessions", json: #"{"id": "tv2"}"#).status == 201)
            let waiting = try await api.send("PUT", "/api/sessions/tv2/link", json: #"{"rate": "variant 1"}"#)
            #expect(waiting.status == 200, "\(waiting.text)")
            #expect(waiting.object?["status"] as? String == "waitingForLadder")

            let master = try await harness.play("/s/tv2/vod/ts/master.m3u8")
            #expect(master.status == 200)
            let media = try #require(master.text.split(separator: "\n").first { $0.hasPrefix("/s/tv2/~media.v") })
            #expect(try await harness.play(String(media)).status == 200)

            let running = try await api.get("/api/sessions/tv2/link")
            #expect(running.object?["status"] as? String == "running", "\(running.text)")
            let ladder = try #require(running.object?["ladder"] as? [Int])
            #expect(ladder.count == 3)
            #expect(running.object?["capacity"] as? Int == ladder[1])

            // A variant the ladder does not have: refused, the link on variant 1 kept.
            let refused = try await api.send("PUT", "/api/sessions/tv2/link", json: #"{"rate": "variant 9"}"#)
            #expect(refused.status == 400)
            #expect(refused.text.contains("variant 9"), "\(refused.text)")
            #expect(try await api.get("/api/sessions/tv2/link").object?["capacity"] as? Int == ladder[1])

            // The responses made on the link carry what it did to them.
            let page = try await api.get("/api/sessions/tv2/events")
            let records = try #require(page.object?["records"] as? [[String: Any]])
            let linked = records.filter { $0["kind"] as? String == "media" }.compactMap { $0["link"] as? [String: Any] }
            #expect(linked.count == 1, "\(page.text.prefix(2000))")
            #expect(linked.first?["latency"] as? Double != nil && linked.first?["waited"] as? Double != nil)
        }
    }

    @Test func aScenarioWithALinkGivesItToTheSessionsThatUseIt() async throws {
        let harness = try await ControlHarness.start()
        try await harness.use { harness in
            let api = harness.api
            #expect(try await api.send("POST", "/api/sessions", json: #"{"id": "tv3"}"#).status == 201)
            let scenario = #"{"name": "one-megabit", "link": {"rate": "1Mbps", "latency": {"base": "40ms"}}}"#
            let put = try await api.send("PUT", "/api/sessions/tv3/rules", json: scenario)
            #expect(put.status == 200, "\(put.text)")
            // Adopted at the session's next request.
            #expect(try await harness.play("/s/tv3/vod/ts/master.m3u8").status == 200)
            let link = try await api.get("/api/sessions/tv3/link")
            #expect(link.object?["from"] as? String == #"scenario "one-megabit""#, "\(link.text)")
            #expect(link.object?["own"] as? Bool == false)
            #expect(link.object?["capacity"] as? Int == 1_000_000)

            // The session's own link goes before its scenario's; cleared, the scenario's comes back.
            #expect(try await api.send("PUT", "/api/sessions/tv3/link", json: #"{"rate": "3Mbps"}"#).status == 200)
            #expect(try await harness.play("/s/tv3/vod/ts/master.m3u8").status == 200)
            #expect(try await api.get("/api/sessions/tv3/link").object?["capacity"] as? Int == 3_000_000)
            #expect(try await api.delete("/api/sessions/tv3/link").status == 200)
            #expect(try await harness.play("/s/tv3/vod/ts/master.m3u8").status == 200)
            #expect(try await api.get("/api/sessions/tv3/link").object?["capacity"] as? Int == 1_000_000)

            // A scenario's bad link is the validator's problem, with its path.
            let bad = try await api.send("PUT", "/api/sessions/tv3/rules", json: #"{"name": "x", "link": {"steps": []}}"#)
            #expect(bad.status == 400)
            #expect(bad.text.contains("$.link.steps"), "\(bad.text)")
        }
    }
}
