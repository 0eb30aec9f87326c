import Foundation
import BundleFormat
import Testing
import TestSupport

/// Recording one session through the control API: start, what the device fetched, stop, the bundle.
@Suite struct RecordingAPITests {
    @Test func aSessionIsRecordedBetweenPutAndDelete() async throws {
        try await ControlHarness.with { harness in
            let api = harness.api
            #expect(try await api.get("/api/sessions/tv1/recording").status == 404, "no such session yet")
            let noSession = try await api.send("PUT", "/api/sessions/tv1/recording", json: "{}")
            #expect(noSession.status == 404 && noSession.error?.contains("POST /api/sessions") == true, "\(noSession.text)")
            #expect(try await api.send("POST", "/api/sessions", json: #"{"id": "tv1"}"#).status == 201)
            let idle = try await api.get("/api/sessions/tv1/recording")
            #expect(idle.status == 200 && idle.object?["active"] as? Bool == false)
            let started = try await api.send("PUT", "/api/sessions/tv1/recording", json: #"{"name": "tv1.tar", "redact": true}"#)
            #expect(started.status == 201, "\(started.text)")
            let path = try #require(started.object?["path"] as? String)
            #expect(path.hasSuffix("/tv1.tar") && started.object?["redacted"] as? Bool == true)
            #expect(try await api.get("/api/sessions/tv1/recording").object?["active"] as? Bool == true)
            let listed = try await api.get("/api/recordings")
            #expect((listed.object?["recordings"] as? [[String: Any]])?.compactMap { $0["session"] as? String } == ["tv1"])
            let again = try await api.send("PUT", "/api/sessions/tv1/recording", json: "{}")
            #expect(again.status == 409 && again.error?.contains("already") == true, "\(again.text)")

            let media = try #require(try await harness.uris(of: "/s/tv1/vod/ts/master.m3u8").first)
            let segment = try #require(try await harness.uris(of: media).first)
            let segmentBytes = try await harness.play(segment).body
            #expect(try await harness.play("/s/tv2/vod/ts/master.m3u8").status == 200, "another session: not in this recording")

            let stopped = try await api.delete("/api/sessions/tv1/recording")
            #expect(stopped.status == 200, "\(stopped.text)")
            #expect(stopped.object?["exchanges"] as? Int == 3 && stopped.object?["ended"] is String)
            #expect(stopped.object?["active"] as? Bool == false)
            #expect(try await api.get("/api/sessions/tv1/recording").object?["active"] as? Bool == false)
            let idleStop = try await api.delete("/api/sessions/tv1/recording")
            #expect(idleStop.status == 200 && idleStop.object?["active"] as? Bool == false, "stopping twice is harmless")

            let bundle = try RecordingBundle.open(path)
            #expect(bundle.manifest.redacted && bundle.exchanges.allSatisfy { $0.session == "tv1" })
            #expect(bundle.exchanges.map(\.kind) == ["master", "media", "segment"])
            #expect(try bundle.body(of: bundle.exchanges[2]) == segmentBytes)
        }
    }

    @Test func badRecordingRequestsGetA400ThatSaysWhatToSend() async throws {
        try await ControlHarness.with { harness in
            let api = harness.api
            #expect(try await api.send("POST", "/api/sessions", json: #"{"id": "tv1"}"#).status == 201)
            for (body, field) in [
                (#"{"name": "../escape"}"#, "$.name"), (#"{"name": ".hidden"}"#, "$.name"), (#"{"name": 7}"#, "$.name"),
                (#"{"redact": "yes"}"#, "$.redact"), (#"{"maxBytes": 10}"#, "$.maxBytes"), (#"{"maxBytes": 1.5e9}"#, "$.maxBytes"),
                (#"{"path": "/etc"}"#, "$.path"), ("[]", "$"),
            ] {
                let answer = try await api.send("PUT", "/api/sessions/tv1/recording", json: body)
                #expect(answer.status == 400, "\(body): \(answer.text)")
                #expect(answer.problemLines.contains { $0.contains(field) }, "\(body): \(answer.problemLines)")
            }
            #expect(try await api.get("/api/recordings").object?["recordings"] as? [Any] != nil)
            #expect(try await api.send("PUT", "/api/sessions/bad%20id/recording", json: "{}").status == 400)
            let plain = try await api.send("PUT", "/api/sessions/tv1/recording")
            #expect(plain.status == 201, "no body takes the defaults: \(plain.text)")
            #expect((plain.object?["path"] as? String)?.contains("/tv1-") == true)
            #expect(try await api.get("/api/sessions/tv1/recording").object?["active"] as? Bool == true)
            #expect(try await api.delete("/api/sessions/tv1").status == 204)
            let after = try await api.get("/api/recordings")
            #expect((after.object?["recordings"] as? [Any])?.isEmpty == true, "deleting the session stopped its recording: \(after.text)")
        }
    }
}
