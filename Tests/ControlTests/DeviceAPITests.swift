@testable import Control
import Foundation
import Proxy
import Testing
import TestSupport

/// The devices of the forward proxy and the setup page through the control API: `GET /api/devices`,
/// `PUT`/`DELETE /api/devices/{address}`, `GET /api/setup`, and the `https://` device URLs of a
/// proxy with an HTTPS listener.
@Suite struct DeviceAPITests {
    @Test func aForwardDeviceIsListedAndANameMovesItsRequestsToThatSession() async throws {
        let harness = try await ControlHarness.start { $0.forward.enabled = true }
        try await harness.use { harness in
            let api = harness.api
            let port = harness.proxyPort

            let setup = try await api.get("/api/setup")
            #expect(setup.status == 200)
            #expect(setup.object?["forward"] as? Bool == true)
            #expect(setup.object?["proxyPort"] as? Int == port)
            #expect(setup.object?["httpsPort"] is NSNull, "no HTTPS listener: \(setup.text)")
            #expect(setup.object?["setupURLs"] as? [String] == [
                "http://localhost:\(port)/hlschaos/setup", "http://192.0.2.7:\(port)/hlschaos/setup",
            ])
            // The URL the dashboard turns into a QR code is the proxy's setup page.
            let page = try await harness.play("/hlschaos/setup")
            #expect(page.status == 200)
            #expect(page.header("content-type")?.hasPrefix("text/html") == true)

            #expect(try await api.get("/api/devices").object?["devices"] as? [[String: Any]] != nil)
            #expect((try await api.get("/api/devices").object?["devices"] as? [Any])?.isEmpty == true)

            // A device whose proxy setting points at hlschaos, without a proxy user: its address names the session.
            let master = "\(harness.demo.baseURL)/vod/ts/master.m3u8"
            #expect(try await RawHTTP.get(port: port, master).status == 200)
            let seen = try #require((try await api.get("/api/devices")).object?["devices"] as? [[String: Any]])
            #expect(seen.count == 1)
            #expect(seen.first?["address"] as? String == "127.0.0.1")
            #expect(seen.first?["session"] as? String == "ip-127-0-0-1")
            #expect(seen.first?["named"] as? Bool == false)
            let lastSeen = try #require(seen.first?["lastSeen"] as? String)
            #expect(ISO8601DateFormatter.withFractions.date(from: lastSeen) != nil, "lastSeen: \(lastSeen)")

            let named = try await api.send("PUT", "/api/devices/127.0.0.1", json: #"{"session": "tv1"}"#)
            #expect(named.status == 200, "\(named.text)")
            #expect(named.object?["address"] as? String == "127.0.0.1")
            #expect(named.object?["session"] as? String == "tv1")
            #expect(named.object?["named"] as? Bool == true)

            // The device's next request lands in the named session.
            #expect(try await RawHTTP.get(port: port, master).status == 200)
            try await waitUntil { await Self.masterRequests(api, session: "tv1") == 1 }
            let list = try #require((try await api.get("/api/devices")).object?["devices"] as? [[String: Any]])
            #expect(list.map { $0["session"] as? String } == ["tv1"])
            #expect(list.map { $0["named"] as? Bool } == [true])

            // Taken back: the address names the session again.
            #expect(try await api.delete("/api/devices/127.0.0.1").status == 204)
            let again = try await api.delete("/api/devices/127.0.0.1")
            #expect(again.status == 404)
            #expect(again.error?.contains("127.0.0.1") == true, "\(again.text)")
            #expect(try await RawHTTP.get(port: port, master).status == 200)
            try await waitUntil { await Self.masterRequests(api, session: "ip-127-0-0-1") == 2 }
            #expect(await Self.masterRequests(api, session: "tv1") == 1)
            let back = try #require((try await api.get("/api/devices")).object?["devices"] as? [[String: Any]])
            #expect(back.map { $0["session"] as? String } == ["ip-127-0-0-1"])
        }
    }

    @Test func namesGivenToAddressesNotSeenYetAreListedByAddress() async throws {
        try await ControlHarness.with { harness in
            let api = harness.api
            let setup = try await api.get("/api/setup")
            #expect(setup.object?["forward"] as? Bool == false)

            #expect(try await api.send("PUT", "/api/devices/fd00::20", json: #"{"session": "phone"}"#).status == 200)
            #expect(try await api.send("PUT", "/api/devices/192.168.1.20", json: #"{"session": "tv1"}"#).status == 200)
            // Percent-encoded, upper case: the same address as the proxy writes it.
            let encoded = try await api.send("PUT", "/api/devices/FD00%3A%3A21", json: #"{"session": "tablet"}"#)
            #expect(encoded.object?["address"] as? String == "fd00::21", "\(encoded.text)")
            // Renamed: the newest name counts.
            #expect(try await api.send("PUT", "/api/devices/192.168.1.20", json: #"{"session": "living-room"}"#).status == 200)

            let devices = try #require((try await api.get("/api/devices")).object?["devices"] as? [[String: Any]])
            #expect(devices.map { $0["address"] as? String } == ["192.168.1.20", "fd00::20", "fd00::21"])
            #expect(devices.map { $0["session"] as? String } == ["living-room", "phone", "tablet"])
            #expect(devices.allSatisfy { $0["named"] as? Bool == true && $0["lastSeen"] is NSNull }, "\(devices)")
            // What the proxy decides sessions with.
            #expect(harness.proxy.control.devices().map(\.session) == ["living-room", "phone", "tablet"])

            #expect(try await api.delete("/api/devices/192.168.1.20").status == 204)
            let left = try #require((try await api.get("/api/devices")).object?["devices"] as? [[String: Any]])
            #expect(left.map { $0["address"] as? String } == ["fd00::20", "fd00::21"])
        }
    }

    @Test func badDeviceRequestsAreRefusedNamingTheField() async throws {
        try await ControlHarness.with { harness in
            let api = harness.api
            let cases: [(path: String, body: String, field: String, says: String)] = [
                ("/api/devices/tv-in-the-hall", #"{"session": "tv1"}"#, "address", #""tv-in-the-hall" is not an IP address"#),
                ("/api/devices/192.168.1.256", #"{"session": "tv1"}"#, "address", "not an IP address"),
                ("/api/devices/192.168.001.020", #"{"session": "tv1"}"#, "address", "as 192.168.1.20"),
                ("/api/devices/192.168.1.20", #"{"session": "tv 1!"}"#, "$.session", #"got "tv 1!""#),
                ("/api/devices/192.168.1.20", #"{"session": 7}"#, "$.session", "got an integer"),
                ("/api/devices/192.168.1.20", #"{"session": null}"#, "$.session", "got null"),
                ("/api/devices/192.168.1.20", #"{}"#, "$.session", #"needs a "session""#),
                ("/api/devices/192.168.1.20", #"{"session": "tv1", "sesion": "tv2"}"#, "$.sesion", #"unknown key "sesion""#),
                ("/api/devices/192.168.1.20", #"["tv1"]"#, "$", "JSON object"),
                ("/api/devices/192.168.1.20", #"{"session": "tv1""#, "$", "not valid JSON"),
            ]
            for item in cases {
                let answer = try await api.send("PUT", item.path, json: item.body)
                #expect(answer.status == 400, "\(item.path) \(item.body): \(answer.status) \(answer.text)")
                #expect(answer.error?.contains(item.says) == true, "\(item.path) \(item.body): \(answer.text)")
                #expect(answer.problemLines.contains { $0.hasPrefix("request: \(item.field):") }, "\(item.path) \(item.body): \(answer.problemLines)")
            }
            let plain = try await api.send("PUT", "/api/devices/192.168.1.20", json: "tv1", contentType: "text/plain")
            #expect(plain.status == 415)
            let badDelete = try await api.delete("/api/devices/localhost")
            #expect(badDelete.status == 400)
            #expect(badDelete.problemLines == ["request: address: expected an IPv4 or IPv6 address"])
            #expect(try await api.delete("/api/devices/10.0.0.1").status == 404)
            // Nothing was named by a refused request.
            #expect((try await api.get("/api/devices").object?["devices"] as? [Any])?.isEmpty == true)
            #expect(harness.proxy.control.devices().isEmpty)
        }
    }

    @Test(.enabled(if: executable("openssl") != nil && executable("curl") != nil))
    func sessionURLsIncludeTheHTTPSListenersAndTheyPlay() async throws {
        try await withTemporaryFolder("tls") { folder in
            let certificate = try SelfSignedCertificate.make(in: folder)
            let harness = try await ControlHarness.start {
                $0.https = ProxyConfiguration.HTTPSSettings(port: 0, certificateFile: certificate.certificate, keyFile: certificate.key)
            }
            try await harness.use { harness in
                let api = harness.api
                let port = harness.proxyPort
                let httpsPort = try #require(harness.proxy.httpsPort)

                let setup = try await api.get("/api/setup")
                #expect(setup.object?["forward"] as? Bool == false)
                #expect(setup.object?["httpsPort"] as? Int == httpsPort)

                let created = try await api.send("POST", "/api/sessions", json: #"{"id": "tv1"}"#)
                #expect(created.status == 201)
                let urls = try #require(created.object?["urls"] as? [String])
                #expect(urls == [
                    "http://localhost:\(port)/s/tv1/", "http://192.0.2.7:\(port)/s/tv1/",
                    "https://localhost:\(httpsPort)/s/tv1/", "https://192.0.2.7:\(httpsPort)/s/tv1/",
                ])
                let listed = try await api.get("/api/sessions")
                #expect(((listed.object?["sessions"] as? [[String: Any]])?.first?["urls"] as? [String]) == urls)

                // The https URL plays: curl verifies the listener's certificate and gets the master playlist.
                let curl = try BackgroundProcess(
                    try #require(executable("curl")),
                    ["-sS", "--http1.1", "--cacert", certificate.certificate, "--resolve", "localhost:\(httpsPort):127.0.0.1",
                     "-o", "-", "-w", "\n%{http_code}", urls[2] + "vod/ts/master.m3u8"])
                #expect(try await curl.wait(seconds: 60) == 0, "curl: \(curl.stderr)")
                #expect(curl.stdout.hasPrefix("#EXTM3U"), "\(curl.stdout)")
                #expect(curl.stdout.hasSuffix("\n200"), "\(curl.stdout)")
                try await waitUntil { await Self.masterRequests(api, session: "tv1") == 1 }
            }
        }
    }

    /// Master playlist requests in the session's records (0 when it has none).
    static func masterRequests(_ api: APIClient, session: String) async -> Int {
        guard let page = try? await api.get("/api/sessions/\(session)/events"),
              let records = page.object?["records"] as? [[String: Any]] else { return 0 }
        return records.filter { $0["kind"] as? String == "master" }.count
    }
}

/// A self-signed certificate for localhost and 127.0.0.1 made by openssl, for `--tls-cert`/`--tls-key`.
struct SelfSignedCertificate {
    var folder: TemporaryFolder
    var certificate: String { folder.path("cert.pem") }
    var key: String { folder.path("key.pem") }

    struct Failed: Error, CustomStringConvertible { var description: String }

    /// Writes cert.pem and key.pem in `folder`.
    static func make(in folder: TemporaryFolder) throws -> SelfSignedCertificate {
        let made = SelfSignedCertificate(folder: folder)
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: executable("openssl") ?? "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", made.key, "-out", made.certificate,
        ]
        let errors = Pipe()
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = errors
        try openssl.run()
        let message = errors.fileHandleForReading.readAllRetryingInterrupts()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else {
            throw Failed(description: "openssl req failed: \(String(decoding: message, as: UTF8.self))")
        }
        return made
    }
}

extension ISO8601DateFormatter {
    /// `2024-05-01T12:00:00.123Z`, as the API writes instants.
    static var withFractions: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
