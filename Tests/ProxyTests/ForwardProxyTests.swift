import Foundation
import NIOCore
import NIOPosix
import Proxy
import Records
import Testing
import TestSupport

/// The forward proxy with real clients: curl through its proxy setting, absolute-form and CONNECT,
/// TLS interception verified against the local CA's root, HTTP/2, blind tunnels, refusals.
@Suite struct ForwardProxyTests {
    @Test func absoluteFormRequestsRunThroughThePresetsOfTheProxyUser() async throws {
        try await ForwardHarness.with { forward in
            let origin = forward.plainOrigin.baseURL
            let master = try await forward.curl(origin + "/vod/ts/master.m3u8", ["--proxy-user", "tv1+status-503:x"])
            #expect(master.status == 200, "\(master.stderr)")
            let variant = try #require(master.text.split(separator: "\n").last { !$0.hasPrefix("#") }.map(String.init))
            // The URI keeps its host and scheme; the tag rides in a query parameter of the proxy's own.
            #expect(variant.hasPrefix(origin + "/"), "\(variant)")
            #expect(variant.contains("hlschaos=media.v"), "\(variant)")
            let media = try await forward.curl(variant, ["--proxy-user", "tv1+status-503:x"])
            #expect(media.status == 200)
            let segments = media.text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0) }
            #expect(segments.count > 10)
            #expect(segments.allSatisfy { $0.contains("hlschaos=seg.") })
            // status-503 answers segments 8–10 of the highest variant with 503.
            let statuses = try await segments.prefix(11).asyncMap { try await forward.curl($0, ["--proxy-user", "tv1+status-503:x"]).status }
            if variant.contains("hlschaos=media.v2") {
                #expect(statuses[8] == 503 && statuses[9] == 503 && statuses[10] == 503, "\(statuses)")
                #expect(statuses[0..<8].allSatisfy { $0 == 200 }, "\(statuses)")
            }
            // The origin never sees the tag: its copy of segment 0 is the proxy's byte for byte.
            let direct = try await ForwardHarness.curl([segments[0].replacingOccurrences(of: #"[?&]hlschaos=[^&]*"#, with: "", options: .regularExpression)])
            let proxied = try await forward.curl(segments[0], ["--proxy-user", "tv1:x"])
            #expect(direct.status == 200 && proxied.body == direct.body)
            let records = forward.proxy.server.control.records(session: "tv1+status-503".split(separator: "+").first.map(String.init))
            #expect(records.contains { $0.kind == .segment && $0.status == 503 } == variant.contains("hlschaos=media.v2"))
            #expect(records.allSatisfy { $0.path.hasPrefix("http://") })
        }
    }

    @Test func aClientWithoutAProxyUserGetsASessionNamedAfterItsAddress() async throws {
        try await ForwardHarness.with { forward in
            let result = try await forward.curl(forward.plainOrigin.baseURL + "/vod/ts/master.m3u8")
            #expect(result.status == 200)
            let records = forward.proxy.server.control.records(session: "ip-127-0-0-1")
            #expect(records.count == 1)
            #expect(forward.proxy.server.control.devices().map(\.session) == ["ip-127-0-0-1"])
            forward.proxy.server.control.nameDevice(address: "127.0.0.1", session: "lab-tv")
            _ = try await forward.curl(forward.plainOrigin.baseURL + "/vod/ts/master.m3u8")
            #expect(forward.proxy.server.control.records(session: "lab-tv").count == 1)
        }
    }

    @Test func outsideTheAllowedNetworksOnlyConfiguredCredentialsGetIn() async throws {
        try await ForwardHarness.with(configure: { configuration in
            configuration.forward.allowNetworks = []
            configuration.forward.users = ["tv1": "s3cret"]
        }) { forward in
            let url = forward.plainOrigin.baseURL + "/vod/ts/master.m3u8"
            let anonymous = try await forward.curl(url)
            #expect(anonymous.status == 407)
            #expect(anonymous.text.contains("forward.allowNetworks"), "\(anonymous.text)")
            let wrong = try await forward.curl(url, ["--proxy-user", "tv1:nope"])
            #expect(wrong.status == 407)
            #expect(wrong.text.contains("wrong password"))
            let right = try await forward.curl(url, ["--proxy-user", "tv1:s3cret"])
            #expect(right.status == 200)
            // A CONNECT is refused the same way.
            let tunnel = try await forward.curl(forward.cdnURL + "/vod/ts/master.m3u8", ["--cacert", forward.rootFile])
            #expect(tunnel.exitCode != 0)
            #expect(tunnel.stderr.contains("407") || tunnel.status == 407, "\(tunnel.stderr)")
        }
    }

    @Test func interceptedHTTPSVerifiesAgainstTheLocalRootAndThePresetsApply() async throws {
        try await ForwardHarness.with(configure: { $0.forward.intercept = [ForwardHarness.cdnName] }) { forward in
            let url = forward.cdnURL + "/vod/ts/master.m3u8"
            let untrusted = try await forward.curl(url)
            #expect(untrusted.exitCode == 60, "curl must refuse a certificate it was not told to trust: \(untrusted.stderr)")
            let user = ["--cacert", forward.rootFile, "--proxy-user", "phone+status-503:x"]
            let master = try await forward.curl(url, user + ["--http1.1"])
            #expect(master.status == 200, "\(master.stderr)")
            #expect(master.httpVersion == "1.1")
            let variants = master.text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
            #expect(variants.allSatisfy { $0.hasPrefix(forward.cdnURL + "/") && $0.contains("hlschaos=media.") }, "\(variants)")
            let top = try #require(variants.first { $0.contains("hlschaos=media.v2") })
            let media = try await forward.curl(top, user + ["--http2"])
            #expect(media.status == 200 && media.httpVersion == "2", "\(media.stderr)")
            let segments = media.text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
            // status-503: segments 8–10 of the highest variant answer 503, over HTTP/2 as over HTTP/1.1.
            let eighth = try await forward.curl(segments[8], user + ["--http2"])
            #expect(eighth.status == 503 && eighth.httpVersion == "2")
            let first = try await forward.curl(segments[0], user + ["--http2"])
            let direct = try await ForwardHarness.curl(["--cacert", forward.originCAFile, "--resolve", "\(ForwardHarness.cdnName):\(forward.httpsOrigin.port):127.0.0.1",
                                                        segments[0].replacingOccurrences(of: "?hlschaos=seg.v2.n0", with: "")])
            #expect(first.status == 200 && first.body == direct.body && !first.body.isEmpty, "\(direct.stderr)")
            let records = forward.proxy.server.control.records(session: "phone")
            #expect(records.contains { $0.method == "CONNECT" && $0.status == 200 })
            #expect(records.contains { $0.path == segments[8] && $0.status == 503 && $0.httpVersion == "HTTP/2" && $0.kind == .segment })
            #expect(records.contains { $0.kind == .master && $0.httpVersion == "HTTP/1.1" && $0.path.hasPrefix("https://\(ForwardHarness.cdnName)") })
        }
    }

    @Test func hostsThatAreNotInterceptedAreTunnelledBlind() async throws {
        let echo = try await EchoServer.start()
        try await ForwardHarness.with { forward in
            let payload = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
            let echoed = try await RawHTTP.run { () -> (Int, [UInt8]) in
                let connection = try RawHTTPConnection(port: forward.proxyPort, readTimeout: 30)
                defer { connection.close() }
                let head = try connection.request("CONNECT", "127.0.0.1:\(echo.port)", readBody: false)
                var received = connection.takeBuffered()
                // In pieces, reading each one back before the next: neither side's buffers can fill up.
                for start in stride(from: 0, to: payload.count, by: 20_000) {
                    connection.sendRaw(Array(payload[start..<min(start + 20_000, payload.count)]))
                    while received.count < min(start + 20_000, payload.count) {
                        let (_, ending) = connection.readSome(limit: 65536)
                        received += connection.takeBuffered()
                        if ending != nil { return (head.status, received) }
                    }
                }
                return (head.status, received)
            }
            #expect(echoed.0 == 200)
            #expect(echoed.1 == payload)
        }
        try await echo.stop()
    }

    /// A client may send its first tunnel bytes in the same write as its CONNECT (the decoder
    /// reads them with the request head): they still reach the target, at once.
    @Test func bytesSentWithTheConnectItselfGoThroughTheTunnel() async throws {
        let echo = try await EchoServer.start()
        try await ForwardHarness.with { forward in
            let payload = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
            let (head, echoed) = try await RawHTTP.run { () -> (String, [UInt8]) in
                let connection = try RawHTTPConnection(port: forward.proxyPort, readTimeout: 10)
                defer { connection.close() }
                connection.sendRaw(Array("CONNECT 127.0.0.1:\(echo.port) HTTP/1.1\r\nHost: 127.0.0.1:\(echo.port)\r\n\r\n".utf8) + payload)
                var received: [UInt8] = []
                let headEnd = Array("\r\n\r\n".utf8)
                while received.count < payload.count + 39 {
                    let (_, ending) = connection.readSome(limit: 65536)
                    received += connection.takeBuffered()
                    if ending != nil { break }
                }
                guard let end = RawHTTPConnection.find(headEnd, in: received) else { return (String(decoding: received, as: UTF8.self), []) }
                return (String(decoding: received[..<end], as: UTF8.self), Array(received[(end + 4)...]))
            }
            #expect(head == "HTTP/1.1 200 Connection Established")
            #expect(echoed == payload)
        }
        try await echo.stop()
    }

    /// `curl --proxytunnel` with an `http://` URL: a CONNECT to an intercepted host, then plain
    /// HTTP inside it. The proxy sees no TLS handshake and answers the requests itself, as http://.
    @Test func plainHTTPInsideAnInterceptedConnectIsProxiedAsHTTP() async throws {
        try await ForwardHarness.with { forward in
            let origin = forward.plainOrigin.baseURL
            let master = try await forward.curl(origin + "/vod/ts/master.m3u8", ["--proxytunnel", "--proxy-user", "tv1:x"])
            #expect(master.status == 200, "\(master.stderr)")
            #expect(master.text.contains("hlschaos=media.v"), "\(master.text)")
            let direct = try await ForwardHarness.curl([origin + "/vod/ts/v1/s000.ts"])
            let proxied = try await forward.curl(origin + "/vod/ts/v1/s000.ts", ["--proxytunnel", "--proxy-user", "tv1:x"])
            #expect(direct.status == 200 && proxied.status == 200 && proxied.body == direct.body)
            let records = forward.proxy.server.control.records(session: "tv1")
            #expect(records.filter { $0.method == "CONNECT" && $0.status == 200 }.count == 2)
            #expect(records.contains { $0.kind == .master && $0.path == origin + "/vod/ts/master.m3u8" })
            #expect(records.contains { $0.path == origin + "/vod/ts/v1/s000.ts" && $0.status == 200 })
        }
    }

    @Test(arguments: [
        ("CONNECT cdn.example.com HTTP/1.1", 400), ("CONNECT cdn.example.com:0 HTTP/1.1", 400),
        ("CONNECT cdn.example.com:99999 HTTP/1.1", 400), ("CONNECT [::1:443 HTTP/1.1", 400), ("CONNECT :443 HTTP/1.1", 400),
        ("CONNECT 169.254.169.254:80 HTTP/1.1", 403), ("CONNECT [fe80::1]:443 HTTP/1.1", 403),
    ])
    func badAndForbiddenConnectTargetsAreRefused(line: String, status: Int) async throws {
        try await ForwardHarness.with { forward in
            let response = try await RawHTTP.run {
                let connection = try RawHTTPConnection(port: forward.proxyPort, readTimeout: 30)
                defer { connection.close() }
                connection.sendRaw(Array("\(line)\r\nHost: x\r\n\r\n".utf8))
                return connection.readUntilClosed().bytes
            }
            let text = String(decoding: response, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 \(status)"), "\(line): \(text)")
        }
    }

    @Test func forwardRequestsMayNotLoopIntoTheProxysOwnListeners() async throws {
        try await ForwardHarness.with { forward in
            let loop = try await forward.curl("http://127.0.0.1:\(forward.proxyPort)/vod/ts/master.m3u8")
            #expect(loop.status == 403)
            #expect(loop.text.contains("own listeners"))
            let connect = try await RawHTTP.get(port: forward.proxyPort, "127.0.0.1:\(forward.proxyPort)", method: "CONNECT")
            #expect(connect.status == 403)
            // Other spellings of loopback, resolved by libcurl (absolute form) or by the proxy (CONNECT).
            for host in ["127.1", "2130706433", "[::ffff:127.0.0.1]", "localhost"] {
                let spelled = try await forward.curl("http://\(host):\(forward.proxyPort)/vod/ts/master.m3u8")
                #expect(spelled.status == 403, "\(host): \(spelled.text)")
                #expect(spelled.text.contains("own port"), "\(host): \(spelled.text)")
                let tunnel = try await RawHTTP.get(port: forward.proxyPort, "\(host):\(forward.proxyPort)", method: "CONNECT")
                #expect(tunnel.status == 403, "CONNECT \(host): \(tunnel.text)")
            }
            // The setup page is the one exception: a device with its proxy set reaches it too.
            let setup = try await forward.curl("http://127.0.0.1:\(forward.proxyPort)/hlschaos/setup")
            #expect(setup.status == 200)
        }
    }

    @Test func otherListenersOfThisProcessAreRefusedToo() async throws {
        // The control API is such a listener: serve and demo hand its port to the proxy.
        let other = try await EchoServer.start()
        try await ForwardHarness.with { forward in
            let before = try await RawHTTP.get(port: forward.proxyPort, "127.0.0.1:\(other.port)", method: "CONNECT", readTimeout: 5)
            #expect(before.status == 200)
            forward.proxy.server.control.addOwnListener(port: other.port)
            let after = try await RawHTTP.get(port: forward.proxyPort, "127.0.0.1:\(other.port)", method: "CONNECT")
            #expect(after.status == 403)
            let absolute = try await forward.curl("http://localhost:\(other.port)/api/sessions")
            #expect(absolute.status == 403)
        }
        try await other.stop()
    }

    @Test func theSetupPageServesTheRootInThreeFormsAndNeverTheKey() async throws {
        try await ForwardHarness.with { forward in
            let page = try await RawHTTP.get(port: forward.proxyPort, "/hlschaos/setup")
            #expect(page.status == 200)
            #expect(page.text.contains(forward.ca.fingerprintSHA256))
            let pem = try await RawHTTP.get(port: forward.proxyPort, "/hlschaos/ca.pem")
            #expect(pem.text == forward.ca.rootPEM)
            let der = try await RawHTTP.get(port: forward.proxyPort, "/hlschaos/ca.crt")
            #expect(der.body == forward.ca.rootDER)
            let profile = try await RawHTTP.get(port: forward.proxyPort, "/hlschaos/hlschaos.mobileconfig")
            #expect(profile.header("content-type") == "application/x-apple-aspen-config")
            #expect(RawHTTPConnection.find(Array("com.apple.security.root".utf8), in: profile.body) != nil)
            let key = try String(contentsOfFile: forward.ca.privateKeyPath, encoding: .utf8)
            let keyBody = key.split(separator: "\n").dropFirst().first.map(String.init) ?? key
            for path in ["/hlschaos/setup", "/hlschaos/ca.pem", "/hlschaos/ca.crt", "/hlschaos/hlschaos.mobileconfig", "/hlschaos/ca.key", "/hlschaos/../ca/ca-key.pem"] {
                let response = try await RawHTTP.get(port: forward.proxyPort, path)
                #expect(!response.text.contains(keyBody), "\(path) leaked the private key")
            }
        }
    }

    @Test func theHTTPSListenerSpeaksHTTP2AndHTTP1WithACertificateFromTheLocalCA() async throws {
        try await ForwardHarness.with(configure: { configuration in
            configuration.https = .init(port: 0)
        }) { forward in
            let server = forward.proxy.server
            let httpsPort = try #require(server.httpsPort)
            let master = try await ForwardHarness.curl(["--cacert", forward.rootFile, "--http2", "https://localhost:\(httpsPort)/s/tls1/@plain/vod/ts/master.m3u8"])
            #expect(master.status == 200, "\(master.stderr)")
            #expect(master.httpVersion == "2")
            // Reverse mode over TLS: URIs are paths on the proxy, in the session.
            let variant = try #require(master.text.split(separator: "\n").last { !$0.hasPrefix("#") }.map(String.init))
            #expect(variant.hasPrefix("/s/tls1/~media.v2/http/127.0.0.1:\(forward.plainOrigin.port)/"), "\(variant)")
            let h1 = try await ForwardHarness.curl(["--cacert", forward.rootFile, "--http1.1", "https://127.0.0.1:\(httpsPort)/s/tls1\(variant.dropFirst("/s/tls1".count))"])
            #expect(h1.status == 200 && h1.httpVersion == "1.1", "\(h1.stderr)")
            let records = server.control.records(session: "tls1")
            #expect(records.map(\.httpVersion) == ["HTTP/2", "HTTP/1.1"])
            // The leaf names this machine: curl checked it for localhost and 127.0.0.1 above; not for another name.
            let wrongName = try await ForwardHarness.curl(["--cacert", forward.rootFile, "--resolve", "elsewhere.test:\(httpsPort):127.0.0.1", "https://elsewhere.test:\(httpsPort)/hlschaos/setup"])
            #expect(wrongName.exitCode == 60, "\(wrongName.stderr)")
        }
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

/// A TCP server on loopback that sends back whatever it reads.
struct EchoServer {
    let channel: Channel
    var port: Int { channel.localAddress?.port ?? 0 }

    static func start() async throws -> EchoServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Echo()) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return EchoServer(channel: channel)
    }

    func stop() async throws { try await channel.close() }

    final class Echo: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.write(data, promise: nil) }
        func channelReadComplete(context: ChannelHandlerContext) { context.flush() }
    }
}
