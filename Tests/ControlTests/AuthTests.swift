@testable import Control
import Foundation
import Proxy
import Testing

/// `--control-token`: every call needs `Authorization: Bearer <token>`; beyond loopback without one
/// the control API does not start.
@Suite struct ControlAuthTests {
    static let token = "s3cret-Token_1"

    @Test func withATokenEveryRouteNeedsIt() async throws {
        try await ControlHarness.with(token: Self.token) { harness in
            var anonymous = harness.api
            anonymous.token = nil
            for route in OpenAPIDocument.routes {
                let path = route.path.replacingOccurrences(of: "{id}", with: "tv1")
                for method in route.methods.map(\.rawValue) {
                    let body = method == "PUT" || method == "POST" ? Array(#"{"id": "tv1", "scenario": "gap"}"#.utf8) : nil
                    let headers = body == nil ? [] : [("Content-Type", "application/json")]
                    let missing = try await anonymous.send(method, path, headers: headers, body: body)
                    #expect(missing.status == 401, "\(method) \(path) without a token")
                    #expect(missing.header("www-authenticate")?.hasPrefix("Bearer") == true)
                    #expect(missing.error?.contains("Authorization: Bearer") == true)
                    let wrong = try await anonymous.send(method, path, headers: headers + [("Authorization", "Bearer s3cret-Token_2")], body: body)
                    #expect(wrong.status == 401, "\(method) \(path) with a wrong token")
                    #expect(wrong.header("www-authenticate")?.contains("invalid_token") == true)
                }
            }
            // Nothing a refused call asked for happened.
            #expect(harness.proxy.control.session("tv1") == nil)
            #expect(harness.proxy.control.scenarioForEverySession == nil)

            let api = harness.api
            #expect(try await api.get("/healthz").status == 200)
            #expect(try await api.get("/metrics").status == 200)
            #expect(try await api.get("/api/presets").status == 200)
            let created = try await api.send("POST", "/api/sessions", json: #"{"id": "tv1", "scenario": "gap"}"#)
            #expect(created.status == 201)
            #expect(try await api.send("GET", "/api/sessions/tv1", headers: [("Authorization", "bearer \(Self.token)")]).status == 200)
            let document = try await api.get("/api/openapi.json")
            #expect((document.object?["security"] as? [[String: Any]])?.first?["bearerAuth"] != nil)
            let stream = try await EventStreamClient.open(
                port: harness.control.port, path: "/api/events/stream", headers: [("Authorization", "Bearer \(Self.token)")])
            #expect(stream.status == 200)
            stream.close()
            let refused = try await EventStreamClient.open(port: harness.control.port, path: "/api/events/stream")
            #expect(refused.status == 401)
            refused.close()
        }
    }

    @Test func beyondLoopbackWithoutATokenItRefusesToStartAndSaysWhy() async throws {
        for host in ["0.0.0.0", "192.0.2.1", "::", "example.com"] {
            let configuration = ControlConfiguration(host: host, port: 0)
            let refusal = try #require(configuration.refusal, "\(host)")
            #expect(refusal.contains("without a token"))
            #expect(refusal.contains("--control-token"))
            #expect(refusal.contains("HLSCHAOS_CONTROL_TOKEN"))
        }
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"] {
            #expect(ControlConfiguration(host: host, port: 0).refusal == nil, "\(host)")
        }
        #expect(ControlConfiguration(host: "0.0.0.0", port: 0, token: "t").refusal == nil)
        #expect(ControlConfiguration(host: "127.0.0.1", port: 0, token: "").refusal != nil)
        #expect(ControlConfiguration(host: "127.0.0.1", port: 0, token: "a b").refusal != nil)

        // And start() itself refuses, before it binds anything.
        try await ControlHarness.with { harness in
            do {
                _ = try await ControlServer.start(proxy: harness.proxy, configuration: ControlConfiguration(host: "0.0.0.0", port: 0))
                Issue.record("started on 0.0.0.0 without a token")
            } catch {
                #expect(error is ControlServer.StartError)
                #expect("\(error)".contains("without a token"))
            }
        }
    }

    @Test func aTakenPortIsAReadableError() async throws {
        try await ControlHarness.with { harness in
            do {
                _ = try await ControlServer.start(
                    proxy: harness.proxy, configuration: ControlConfiguration(host: "127.0.0.1", port: harness.control.port))
                Issue.record("a second control API bound the same port")
            } catch {
                #expect("\(error)".contains("already in use"), "\(error)")
                #expect("\(error)".contains("--control"))
            }
        }
    }
}
