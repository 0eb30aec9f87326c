import Chaos
@testable import Control
import Records
import Foundation
import Testing
import TestSupport

/// Every route end to end over loopback, without a token: status codes, JSON shapes, and that what
/// the API sets is what the proxy does on the next request.
@Suite struct ControlAPITests {
    @Test func healthMetricsAndTheOpenAPIDocumentAnswer() async throws {
        try await ControlHarness.with { harness in
            let api = harness.api

            let health = try await api.get("/healthz")
            #expect(health.status == 200)
            #expect(health.header("content-type") == "application/json")
            #expect(health.object?["status"] as? String == "ok")
            #expect(health.object?["proxyPort"] as? Int == harness.proxyPort)

            _ = try await harness.play("/s/m1/vod/ts/master.m3u8")
            try await waitUntil { (try? await api.get("/metrics").text.contains(#"kind="master""#)) == true }
            let metrics = try await api.get("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.header("content-type")?.hasPrefix("text/plain") == true)
            for name in [
                #"hlschaos_requests_total{kind="master",status="200",fault="no"} 1"#, "hlschaos_sessions 1",
                "hlschaos_sessions_limit 10000", "hlschaos_client_connections_limit 4096", "hlschaos_records_kept 1",
                "hlschaos_records_kept_limit", "hlschaos_rule_engines_cached", "hlschaos_playlist_history_bytes",
                "hlschaos_learned_hosts_limit", "hlschaos_event_streams 0", "hlschaos_sessions_evicted_total 0",
                "hlschaos_request_duration_seconds_bucket", #"hlschaos_upstream_first_byte_seconds_count{kind="master"} 1"#,
                #"hlschaos_sent_bytes_total{kind="master"}"#,
            ] {
                #expect(metrics.text.contains(name), "missing \(name) in\n\(metrics.text)")
            }
            // One record, kept as bytes: a few hundred of the 768 reserved per record of the 50,000.
            #expect(metrics.text.contains("hlschaos_records_kept_bytes_limit 38400000"))
            let keptBytes = metrics.text.split(separator: "\n").first { $0.hasPrefix("hlschaos_records_kept_bytes ") }
                .flatMap { Double($0.split(separator: " ")[1]) }
            #expect((100...768).contains(keptBytes ?? 0), "hlschaos_records_kept_bytes: \(String(describing: keptBytes))")

            let document = try await api.get("/api/openapi.json")
            #expect(document.status == 200)
            #expect(document.object?["openapi"] as? String == "3.1.0")
            #expect((document.object?["info"] as? [String: Any])?["version"] as? String == "test")
            #expect(document.text.hasSuffix("}\n") && !document.text.hasSuffix("\n\n"))
            #expect(document.object?["security"] as? [Any] != nil)
            #expect((document.object?["security"] as? [Any])?.isEmpty == true, "no token: the document asks for none")
        }
    }

    @Test func metricsCountEachRecordByKindStatusAndFault() async throws {
        try await ControlHarness.with { harness in
            let metrics = ControlMetrics(proxy: harness.proxy.control) { (3, 64) }
            var record = RequestRecord(
                id: 7, time: Date(), session: "tv1", client: "127.0.0.1:1", method: "GET", path: "/s/tv1/~seg.v0.n1/x.ts",
                kind: .segment, upstream: .init(url: "http://origin/x.ts", status: 200, connect: 0.001, firstByte: 0.2, total: 0.4),
                actions: [.init(.status(503), rule: "s/r")], status: 503, bytesSent: 1000, duration: 0.3)
            metrics.observe(record)
            record.id = 8
            record.upstream = .init(url: "http://origin/x.ts", error: "connection refused")
            record.status = nil
            record.ending = .reset
            record.actions = []
            metrics.observe(record)
            // The kept-records gauge counts what the ring holds: the two requests made here.
            for _ in 0..<2 { #expect(try await harness.play("/vod/ts/master.m3u8").status == 200) }
            try await waitUntil { harness.proxy.control.snapshot().recordsKept == 2 }
            let text = String(decoding: metrics.scrape(), as: UTF8.self)
            for line in [
                #"hlschaos_requests_total{kind="segment",status="503",fault="yes"} 1"#,
                #"hlschaos_requests_total{kind="segment",status="none",fault="no"} 1"#,
                #"hlschaos_request_endings_total{ending="reset"} 1"#,
                #"hlschaos_sent_bytes_total{kind="segment"} 2000"#,
                #"hlschaos_upstream_first_byte_seconds_bucket{kind="segment",le="0.1"} 0"#,
                #"hlschaos_upstream_first_byte_seconds_bucket{kind="segment",le="0.25"} 1"#,
                #"hlschaos_upstream_first_byte_seconds_count{kind="segment"} 1"#,
                #"hlschaos_upstream_failures_total{kind="segment"} 1"#,
                "hlschaos_records_kept 2", "hlschaos_event_streams 3",
            ] {
                #expect(text.contains(line), "missing \(line) in\n\(text)")
            }
        }
    }

    /// Each thread counts into its own tally, handed to the registry every `RequestTally.batch`
    /// requests and at a scrape: however the requests fall across threads and batches, a scrape
    /// shows every one of them, once.
    @Test func metricsCountedOnManyThreadsAddUpExactlyWhenScraped() async throws {
        try await ControlHarness.with { harness in
            let metrics = ControlMetrics(proxy: harness.proxy.control) { (0, 64) }
            let perTask = RequestTally.batch * 3 + 17
            await withTaskGroup(of: Void.self) { group in
                for task in 0..<6 {
                    group.addTask {
                        for index in 0..<perTask {
                            let failed = (task + index) % 5 == 0
                            metrics.observe(RequestRecord(
                                id: 0, time: Date(), session: "s\(task)", client: "", method: "GET", path: "/",
                                kind: .segment, upstream: .init(url: "http://o/", status: 200, firstByte: 0.03),
                                actions: failed ? [.init(.status(503), rule: "s/r")] : [], status: failed ? 503 : 200, bytesSent: 10, duration: 0.2))
                            if index % 50 == 0 { await Task.yield() }  // move between threads
                        }
                    }
                }
            }
            let text = String(decoding: metrics.scrape(), as: UTF8.self)
            let total = 6 * perTask
            let failed = (0..<6).reduce(0) { sum, task in sum + (0..<perTask).filter { (task + $0) % 5 == 0 }.count }
            for line in [
                #"hlschaos_requests_total{kind="segment",status="503",fault="yes"} \#(failed)"#,
                #"hlschaos_requests_total{kind="segment",status="200",fault="no"} \#(total - failed)"#,
                #"hlschaos_request_endings_total{ending="complete"} \#(total)"#,
                #"hlschaos_sent_bytes_total{kind="segment"} \#(10 * total)"#,
                #"hlschaos_upstream_first_byte_seconds_bucket{kind="segment",le="0.025"} 0"#,
                #"hlschaos_upstream_first_byte_seconds_bucket{kind="segment",le="0.05"} \#(total)"#,
                #"hlschaos_request_duration_seconds_count{kind="segment"} \#(total)"#,
            ] {
                #expect(text.contains(line + "\n"), "missing \(line) in\n\(text)")
            }
        }
    }

    /// With the repository's rules/ as the preset folder, and with the built-in presets only.
    @Test(arguments: [ControlHarness.rulesDirectory, nil])
    func presetsAreListedWithDescriptionAndReference(folder: String?) async throws {
        try await ControlHarness.with(presetDirectory: folder) { harness in
            let response = try await harness.api.get("/api/presets")
            #expect(response.status == 200)
            let presets = try #require(response.object?["presets"] as? [[String: Any]])
            #expect(presets.map { $0["name"] as? String } == harness.proxy.control.presetNames)
            let status503 = try #require(presets.first { $0["name"] as? String == "status-503" })
            let file = try RuleDecoder.decodeFile(atPath: ControlHarness.rulesDirectory + "/status-503.json")
            #expect(status503["description"] as? String == file.description)
            #expect(status503["reference"] as? String == file.reference)
            #expect(status503["rules"] as? Int == file.rules.count)
        }
    }

    @Test func aSessionIsCreatedWithAPresetAndItsDeviceURLsListed() async throws {
        try await ControlHarness.with { harness in
            let api = harness.api
            let created = try await api.send("POST", "/api/sessions", json: #"{"id": "tv1", "scenario": "status-503"}"#)
            #expect(created.status == 201, "\(created.text)")
            #expect(created.header("location") == "/api/sessions/tv1")
            let session = try #require(created.object)
            #expect(session["id"] as? String == "tv1")
            #expect(session["scenario"] as? String == "status-503")
            #expect(session["requests"] as? Int == 0)
            #expect(session["urls"] as? [String] == [
                "http://localhost:\(harness.proxyPort)/s/tv1/", "http://192.0.2.7:\(harness.proxyPort)/s/tv1/",
            ])
            #expect((session["startedAt"] as? String)?.hasSuffix("Z") == true)

            let fetched = try await api.get("/api/sessions/tv1")
            #expect(fetched.status == 200)
            #expect(fetched.object?["scenario"] as? String == "status-503")

            let list = try await api.get("/api/sessions")
            #expect(list.status == 200)
            #expect((list.object?["sessions"] as? [[String: Any]])?.map { $0["id"] as? String } == ["tv1"])

            // Again: the session exists, so 200, and its scenario is replaced.
            let again = try await api.send("POST", "/api/sessions", json: #"{"id": "tv1"}"#)
            #expect(again.status == 200)
            #expect(again.object?["scenario"] is NSNull)
        }
    }

    @Test func aSessionIsCreatedWithAnInlineScenario() async throws {
        try await ControlHarness.with { harness in
            let created = try await harness.api.send(
                "POST", "/api/sessions", json: #"{"id": "phone.2", "scenario": \#(statusScenario(name: "inline-503"))}"#)
            #expect(created.status == 201, "\(created.text)")
            #expect(created.object?["scenario"] as? String == "inline-503")
            let master = try await harness.play("/s/phone.2/vod/ts/master.m3u8")
            #expect(master.status == 503)
            #expect(master.header("x-hlschaos-fault") == "inline-503/all-master")
        }
    }

    @Test func anInvalidScenarioIsAnsweredWithTheValidatorsProblems() async throws {
        try await ControlHarness.with { harness in
            let api = harness.api
            let scenario = #"""
                {"name": "broken", "rules": [
                  {"id": "a", "match": {"msm": 3}, "action": {"status": 1503}},
                  {"id": "a", "match": {}, "action": {"status": 503, "hang": true}}]}
                """#
            let expected = RuleDecoder.problems(in: Array(scenario.utf8), file: "scenario").map(\.description)
            #expect(expected.count >= 3)

            _ = try await api.send("POST", "/api/sessions", json: #"{"id": "s1"}"#)
            for (method, path, body) in [
                ("POST", "/api/sessions", #"{"id": "s2", "scenario": \#(scenario)}"#),
                ("PUT", "/api/sessions/s1/rules", scenario),
                ("PUT", "/api/sessions/s1/rules", #"{"scenario": \#(scenario)}"#),
                ("PUT", "/api/rules", scenario),
            ] {
                let response = try await api.send(method, path, json: body)
                #expect(response.status == 400, "\(method) \(path): \(response.text)")
                #expect(response.problemLines == expected, "\(method) \(path)")
                #expect(response.error?.contains("not valid") == true)
            }
            // Nothing was changed.
            #expect(harness.proxy.control.session("s2") == nil)
            #expect(harness.proxy.control.session("s1")?.scenario == nil)
            #expect(harness.proxy.control.scenarioForEverySession == nil)
        }
    }

    @Test func badRequestsGetAFitting4xx() async throws {
        try await ControlHarness.with { harness in
            let api = harness.api

            let badJSON = try await api.send("POST", "/api/sessions", json: #"{"id": "tv1", "#)
            #expect(badJSON.status == 400)
            #expect(badJSON.problemLines == ["request: $: invalid JSON at line 1, column 15: expected a key in double quotes"])

            let latin1 = try await api.send(
                "POST", "/api/sessions", headers: [("Content-Type", "application/json")],
                body: Array(#"{"id": "caf"#.utf8) + [0xE9] + Array(#""}"#.utf8))
            #expect(latin1.status == 400)
            #expect(latin1.problemLines == ["request: $: not UTF-8"])

            let form = try await api.send("POST", "/api/sessions", json: "id=tv1", contentType: "application/x-www-form-urlencoded")
            #expect(form.status == 415)
            #expect(form.error?.contains("Content-Type: application/json") == true)

            let large = try await api.send("PUT", "/api/rules", json: "[" + String(repeating: "0,", count: 600_000) + "0]")
            #expect(large.status == 413)
            #expect(large.object?["problems"] as? [Any] != nil)

            let empty = try await api.send("PUT", "/api/rules", json: "")
            #expect(empty.status == 400)

            let unknownKey = try await api.send("POST", "/api/sessions", json: #"{"id": "tv1", "scenaro": "gap"}"#)
            #expect(unknownKey.status == 400)
            #expect(unknownKey.problemLines == [#"request: $.scenaro: unknown key "scenaro" (did you mean "scenario"?)"#])

            let missingID = try await api.send("POST", "/api/sessions", json: #"{"scenario": "gap"}"#)
            #expect(missingID.status == 400)

            let list = try await api.send("POST", "/api/sessions", json: #"["tv1"]"#)
            #expect(list.status == 400)

            let badID = try await api.send("POST", "/api/sessions", json: #"{"id": "tv 1"}"#)
            #expect(badID.status == 400)
            #expect(badID.error?.contains("is not a session id") == true)
            #expect(try await api.get("/api/sessions/" + String(repeating: "x", count: 65)).status == 400)
            #expect(try await api.get("/api/sessions/a%2Fb").status == 400)

            let unknownPreset = try await api.send("POST", "/api/sessions", json: #"{"id": "tv1", "scenario": "status-530"}"#)
            #expect(unknownPreset.status == 400)
            #expect(unknownPreset.error?.contains(#"no preset named "status-530" (did you mean "#) == true, "\(unknownPreset.text)")
            #expect(unknownPreset.problemLines.first?.hasPrefix("request: $.scenario: no preset named") == true)
            let numberScenario = try await api.send("POST", "/api/sessions", json: #"{"id": "tv1", "scenario": 5}"#)
            #expect(numberScenario.status == 400)
            #expect(harness.proxy.control.session("tv1") == nil)

            let nullRules = try await api.send("PUT", "/api/rules", json: #"{"scenario": null}"#)
            #expect(nullRules.status == 400)

            let wrongMethod = try await api.send("PATCH", "/api/sessions/tv1", json: "{}")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.header("allow") == "GET, DELETE")
            let noRoute = try await api.get("/api/nothing")
            #expect(noRoute.status == 404)
            #expect(noRoute.error?.contains("no such route") == true)
        }
    }

    @Test func anUnknownSessionIs404OnEveryRouteThatNamesOne() async throws {
        try await ControlHarness.with { harness in
            let api = harness.api
            for (method, path) in [
                ("GET", "/api/sessions/ghost"), ("DELETE", "/api/sessions/ghost"), ("DELETE", "/api/sessions/ghost/rules"),
                ("GET", "/api/sessions/ghost/events"), ("GET", "/api/sessions/ghost/har"), ("GET", "/api/sessions/ghost/report"),
            ] {
                let response = try await api.send(method, path)
                #expect(response.status == 404, "\(method) \(path)")
                #expect(response.error == #"no session "ghost": create it with POST /api/sessions, or let a device request /s/ghost/…"#)
                #expect(response.object?["problems"] as? [Any] != nil)
            }
            let put = try await api.send("PUT", "/api/sessions/ghost/rules", json: #"{"scenario": "gap"}"#)
            #expect(put.status == 404)
            #expect(harness.proxy.control.session("ghost") == nil)
        }
    }

    @Test func sessionRulesAreSetAndClearedAndTakeEffectOnTheNextRequest() async throws {
        try await ControlHarness.with { harness in
            let api = harness.api
            #expect(try await harness.play("/s/tv1/vod/ts/master.m3u8").status == 200)

            let put = try await api.send("PUT", "/api/sessions/tv1/rules", json: statusScenario(name: "tv1-503"))
            #expect(put.status == 200, "\(put.text)")
            #expect(put.object?["scenario"] as? String == "tv1-503")
            #expect(put.object?["requests"] as? Int == 1)
            #expect(try await harness.play("/s/tv1/vod/ts/master.m3u8").status == 503)
            #expect(try await harness.play("/s/other/vod/ts/master.m3u8").status == 200, "another session is not touched")

            let preset = try await api.send("PUT", "/api/sessions/tv1/rules", json: #"{"scenario": "status-404"}"#)
            #expect(preset.status == 200)
            #expect(preset.object?["scenario"] as? String == "status-404")
            #expect(try await harness.play("/s/tv1/vod/ts/master.m3u8").status == 200, "status-404 targets segments")

            let cleared = try await api.delete("/api/sessions/tv1/rules")
            #expect(cleared.status == 200)
            #expect(cleared.object?["scenario"] is NSNull)

            let deleted = try await api.delete("/api/sessions/tv1")
            #expect(deleted.status == 204)
            #expect(deleted.body.isEmpty)
            #expect(try await api.get("/api/sessions/tv1").status == 404)
        }
    }

    @Test func rulesForEverySessionAreSetListedAndCleared() async throws {
        try await withTemporaryFolder("control") { folder in
            let rules = try folder.file("rules.json", statusScenario(name: "from-file", kind: "key", status: 500))
            try await ControlHarness.with(ruleFiles: [rules]) { harness in
                let api = harness.api
                let initial = try await api.get("/api/rules")
                #expect(initial.status == 200)
                #expect(initial.object?["scenario"] is NSNull)
                #expect(initial.object?["ruleFiles"] as? [String] == ["from-file"])

                let put = try await api.send("PUT", "/api/rules", json: #"{"scenario": \#(statusScenario(name: "everyone"))}"#)
                #expect(put.status == 200, "\(put.text)")
                #expect(put.object?["scenario"] as? String == "everyone")
                #expect(try await harness.play("/s/a/vod/ts/master.m3u8").status == 503)
                #expect(try await harness.play("/vod/ts/master.m3u8").status == 503)
                #expect(try await api.get("/api/rules").object?["scenario"] as? String == "everyone")

                let cleared = try await api.delete("/api/rules")
                #expect(cleared.status == 200)
                #expect(cleared.object?["scenario"] is NSNull)
                #expect(try await harness.play("/s/a/vod/ts/master.m3u8").status == 200)
            }
        }
    }

    @Test func eventsArePagedWithACursorAndHARAndReportReadTheSameRecords() async throws {
        try await ControlHarness.with { harness in
            let api = harness.api
            _ = try await api.send("POST", "/api/sessions", json: #"{"id": "ev", "scenario": \#(statusScenario(kind: "media", status: 500))}"#)
            let media = try #require(try await harness.uris(of: "/s/ev/vod/ts/master.m3u8").first)
            #expect(try await harness.play(media).status == 500)
            _ = try await harness.play("/s/other/vod/ts/master.m3u8")
            try await waitUntil { harness.proxy.control.records(session: "ev").count == 2 }

            let all = try await api.get("/api/sessions/ev/events")
            #expect(all.status == 200)
            let records = try #require(all.object?["records"] as? [[String: Any]])
            #expect(records.count == 2)
            #expect(records.allSatisfy { $0["session"] as? String == "ev" })
            #expect(records.map { $0["kind"] as? String } == ["master", "media"])
            let ids = records.compactMap { $0["id"] as? Int }
            #expect(all.object?["cursor"] as? Int == ids.max())

            let firstPage = try await api.get("/api/sessions/ev/events?limit=1")
            #expect((firstPage.object?["records"] as? [[String: Any]])?.count == 1)
            let cursor = try #require(firstPage.object?["cursor"] as? Int)
            let secondPage = try await api.get("/api/sessions/ev/events?since=\(cursor)")
            #expect((secondPage.object?["records"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [ids[1]])
            let empty = try await api.get("/api/sessions/ev/events?since=\(ids.max()!)")
            #expect((empty.object?["records"] as? [Any])?.isEmpty == true)
            #expect(empty.object?["cursor"] as? Int == ids.max())

            for bad in ["since=-1", "since=abc", "since=1.5", "since=", "since=99999999999999999999999", "limit=0", "limit=10001", "limit=x"] {
                let response = try await api.get("/api/sessions/ev/events?\(bad)")
                #expect(response.status == 400, "\(bad)")
            }

            let har = try await api.get("/api/sessions/ev/har")
            #expect(har.status == 200)
            #expect(har.header("content-disposition") == #"attachment; filename="hlschaos-ev.har""#)
            let log = try #require(har.object?["log"] as? [String: Any])
            #expect(log["version"] as? String == "1.2")
            let entries = try #require(log["entries"] as? [[String: Any]])
            #expect(entries.compactMap { $0["_id"] as? Int } == ids)
            let firstURL = (entries.first?["request"] as? [String: Any])?["url"] as? String
            #expect(firstURL == "http://localhost:\(harness.proxyPort)/s/ev/vod/ts/master.m3u8")

            let report = try await api.get("/api/sessions/ev/report")
            #expect(report.status == 200, "\(report.text)")
            #expect(report.object?["session"] as? String == "ev")
            #expect(report.object?["requests"] as? Int == 2)
            #expect(report.object?["failures"] as? [Int] == [ids[1]])
            #expect((report.object?["verdict"] as? String)?.isEmpty == false)
            // The findings in words, as the dashboard shows them: the fault names its resource and status.
            let words = try #require(report.object?["words"] as? [String: Any])
            #expect((words["outcome"] as? String)?.isEmpty == false)
            let findings = try #require(words["findings"] as? [[String: Any]])
            #expect(findings.first?["label"] as? String == "first fault")
            let fault = findings.first?["words"] as? String ?? ""
            #expect(fault.hasPrefix("the media playlist of variant ") && fault.contains(" → 500"), "\(fault)")
            #expect(findings.first?["records"] as? [Int] == [ids[1]])
            #expect(findings.contains { $0["label"] as? String == "failed" && $0["records"] as? [Int] == [ids[1]] })

            // Records outlive the session: a forgotten session's events are still there.
            #expect(try await api.delete("/api/sessions/ev").status == 204)
            #expect(try await api.get("/api/sessions/ev/events").status == 200)
        }
    }
}

/// Waits for `condition` (`eventually`), recording an issue when it never holds.
func waitUntil(seconds: Double = 30, _ condition: () async -> Bool) async throws {
    if await !eventually(timeout: .seconds(seconds), condition) { Issue.record("condition not met within \(seconds) s") }
}
