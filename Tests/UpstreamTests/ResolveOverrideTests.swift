import Testing
import TestSupport
@testable import Upstream

@Suite struct ResolveOverrideTests {
    @Test func aMadeUpNameReachesTheOriginItIsMappedTo() async throws {
        try await TestOrigin.with { origin in
            let client = try UpstreamClient(configuration: UpstreamConfiguration(resolve: ["made-up.test:\(origin.port)": "127.0.0.1"]))
            origin.route("/seg.ts", .generated(size: 20_000))
            let url = "http://made-up.test:\(origin.port)/seg.ts"
            for _ in 0..<2 {  // the second transfer takes the pooled handle, reset in between
                let response = try await client.fetch(UpstreamRequest(url: url))
                #expect(response.status == 200)
                #expect(try await readPattern(response.body) == (20_000, true))
            }
            #expect(origin.requestLog.map { $0.header("Host") } == ["made-up.test:\(origin.port)", "made-up.test:\(origin.port)"])
            #expect(client.easyHandlesCreated == 1)
            await client.shutdown()
        }
    }

    @Test func withoutTheOverrideTheNameDoesNotResolve() async throws {
        try await withOrigin(configuration: UpstreamConfiguration(resolve: ["other.test:80": "127.0.0.1"])) { origin, client in
            let url = "http://made-up.invalid:\(origin.port)/seg.ts"
            let error = await upstreamError { () async throws(UpstreamError) in try await client.fetch(UpstreamRequest(url: url)) }
            guard case .dns(url, _)? = error else {
                Issue.record("expected .dns, got \(String(describing: error))")
                return
            }
        }
    }

    @Test(arguments: [
        ("cdn.example.com", "203.0.113.7", "has no port"),
        ("cdn.example.com:", "203.0.113.7", "port \"\" is not a number"),
        ("cdn.example.com:0", "203.0.113.7", "port \"0\" is not a number from 1 to 65535"),
        ("cdn.example.com:65536", "203.0.113.7", "port \"65536\""),
        ("cdn.example.com:https", "203.0.113.7", "port \"https\""),
        (":443", "203.0.113.7", "no host name before the port"),
        ("cdn example.com:443", "203.0.113.7", "is not a host name"),
        ("cdn.example.com:443", "cdn-edge-7", "\"cdn-edge-7\" is not an IPv4 or IPv6 address"),
        ("cdn.example.com:443", "203.0.113.7,203.0.113.8", "is not an IPv4 or IPv6 address"),
        ("cdn.example.com:443", "203.0.113", "is not an IPv4 or IPv6 address"),
        ("cdn.example.com:443", "", "is not an IPv4 or IPv6 address"),
    ])
    func aBadEntryIsRefusedAtInitNamingItAndTheForm(key: String, address: String, problem: String) throws {
        let problems = UpstreamConfiguration.validateResolve([key: address, "good.example.com:443": "2001:db8::7"])
        #expect(problems.count == 1)
        do {
            _ = try UpstreamClient(configuration: UpstreamConfiguration(resolve: [key: address]))
            Issue.record("init accepted \(key): \(address)")
        } catch {
            guard case .setup(let message) = error else {
                Issue.record("expected .setup, got \(error)")
                return
            }
            #expect(message.contains("resolve entry \"\(key)\": \"\(address)\""), "\(message)")
            #expect(message.contains(problem), "\(message)")
            #expect(message.contains(#"expected "host:port": "address""#), "\(message)")
        }
    }

    @Test func goodEntriesPass() {
        #expect(UpstreamConfiguration.validateResolve([
            "cdn.example.com:443": "203.0.113.7", "v6.example.com:80": "2001:db8::7", "bracketed.example.com:80": "[::1]",
            "under_score.test:8080": "127.0.0.1",
        ]).isEmpty)
        #expect(UpstreamConfiguration.validateResolve([:]).isEmpty)
    }

    @Test func twoSpellingsOfOneHostAreOneProblem() {
        let problems = UpstreamConfiguration.validateResolve(["CDN.example.com:443": "203.0.113.7", "cdn.example.com:443": "203.0.113.8"])
        #expect(problems.count == 1)
        #expect(problems.first?.contains("names the same host and port") == true)
    }

    @Test func curlGetsIPv6InBrackets() throws {
        let parsed = try ResolveOverride.parse(key: "v6.example.com:443", address: "2001:db8::7").get()
        #expect(parsed.curlEntry == "v6.example.com:443:[2001:db8::7]")
        #expect(try ResolveOverride.parse(key: "a.test:80", address: "192.0.2.1").get().curlEntry == "a.test:80:192.0.2.1")
    }
}
