import Foundation
import Testing
import TestSupport

/// `GET /api/sessions/{id}/player`, `GET /api/sessions/{id}/cmcd` and a session's `stripCMCD`.
@Suite struct CMCDAPITests {
    @Test func thePlayerTimelineAndConformanceOfASession() async throws {
        try await ControlHarness.with { harness in
            let api = harness.api
            _ = try await harness.play("/s/p1/vod/ts/master.m3u8?CMCD=bl%3D0%2Cot%3Dm%2Csid%3D%22s-1%22%2Csu")
            _ = try await harness.play("/s/p1/vod/ts/v0/segment0.ts?CMCD=bl%3D2500%2Cbr%3D400%2Cd%3D2000%2Cmtp%3D9000%2Cot%3Dv%2Csid%3D%22s-1%22")
            _ = try await harness.play("/s/p1/vod/ts/v0/segment1.ts?CMCD=bl%3D-3%2Cbs%2Cot%3Dv%2Csid%3D%22s-2%22")
            try await waitUntil { harness.proxy.control.records(session: "p1").count == 3 }

            let player = try await api.get("/api/sessions/p1/player")
            #expect(player.status == 200)
            let timeline = try #require(player.object)
            #expect(timeline["requestsWithCMCD"] as? Int == 3)
            #expect(timeline["sessionIDs"] as? [String] == ["s-1", "s-2"])
            let points = try #require(timeline["points"] as? [[String: Any]])
            #expect(points.map { $0["bufferLength"] as? Int } == [0, 2500, nil])
            #expect(points[1]["measuredThroughput"] as? Int == 9000)
            #expect((timeline["stalls"] as? [[String: Any]])?.first?["source"] as? String == "bs")
            #expect((points[2]["findings"] as? [String])?.first?.contains("bl") == true)

            let cmcd = try await api.get("/api/sessions/p1/cmcd")
            #expect(cmcd.status == 200)
            let conformance = try #require(cmcd.object)
            #expect(conformance["valid"] as? Bool == false)
            let issues = try #require(conformance["issues"] as? [[String: Any]])
            #expect(issues.contains { $0["kind"] as? String == "changed" && $0["key"] as? String == "sid" }, "\(issues)")
            #expect((conformance["findings"] as? [[String: Any]])?.count == 1)

            let report = try await api.get("/api/sessions/p1/report")
            let summary = try #require(report.object?["player"] as? [String: Any])
            #expect((summary["lowestBuffer"] as? [String: Any])?["bufferLength"] as? Int == 0)
            let findings = try #require((report.object?["words"] as? [String: Any])?["findings"] as? [[String: Any]])
            let said = try #require(findings.first { $0["label"] as? String == "player (CMCD)" })
            #expect((said["words"] as? String)?.hasPrefix("lowest 0.0 s · 1 stall · started in ") == true, "\(said)")

            for path in ["/api/sessions/nobody/player", "/api/sessions/nobody/cmcd"] {
                let missing = try await api.get(path)
                #expect(missing.status == 404)
                #expect((missing.object?["error"] as? String)?.contains(#"no session "nobody""#) == true)
            }
        }
    }

    @Test func aSessionIsCreatedWithItsOwnStripCMCD() async throws {
        try await ControlHarness.with { harness in
            let api = harness.api
            let created = try await api.send("POST", "/api/sessions", json: #"{"id": "tv1", "stripCMCD": true}"#)
            #expect(created.status == 201)
            #expect(created.object?["stripCMCD"] as? Bool == true)
            #expect(harness.proxy.control.session("tv1")?.stripCMCD == true)
            let back = try await api.send("POST", "/api/sessions", json: #"{"id": "tv1", "stripCMCD": null}"#)
            #expect(back.object?["stripCMCD"] as? Bool == false, "null: the configuration's (false)")
            let bad = try await api.send("POST", "/api/sessions", json: #"{"id": "tv1", "stripCMCD": "yes"}"#)
            #expect(bad.status == 400)
            #expect((bad.object?["error"] as? String)?.contains(#""stripCMCD" must be true, false or null"#) == true)
            let listed = try await api.get("/api/sessions/tv1")
            #expect(listed.object?["stripCMCD"] as? Bool == false)
        }
    }
}
