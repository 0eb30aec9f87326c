import Foundation
import Testing
import TestSupport
@testable import Upstream
#if canImport(Glibc)
import Glibc
#endif

/// Guarded transfers (forward-proxy fetches) against real loopback origins: "own" is an origin
/// whose port the guard lists as this process's, "other" one it does not.
@Suite struct AddressGuardTests {
    private func withOwnAndOther(
        connectTimeout: Duration = .seconds(5),
        _ body: (_ own: TestOrigin, _ other: TestOrigin, UpstreamClient) async throws -> Void
    ) async throws {
        try await TestOrigin.with { own in
            try await TestOrigin.with { other in
                own.route("/seg.ts", .generated(size: 30_000))
                other.route("/seg.ts", .generated(size: 30_000))
                let client = try UpstreamClient(configuration: UpstreamConfiguration(
                    connectTimeout: connectTimeout,
                    resolve: ["metadata.hlschaos.test:80": "169.254.169.254"],
                    addressGuard: AddressGuard(ownPorts: [own.port])))
                try await withTeardown { await client.shutdown() } run: { try await body(own, other, client) }
            }
        }
    }

    private func refusal(_ client: UpstreamClient, _ request: UpstreamRequest) async -> (address: String, reason: String, description: String)? {
        let error = await upstreamError { () async throws(UpstreamError) in try await client.fetch(request) }
        guard case let .refusedAddress(url, address, reason)? = error else {
            Issue.record("expected .refusedAddress for \(request.url), got \(String(describing: error))")
            return nil
        }
        #expect(url == request.url)
        return (address, reason, error?.description ?? "")
    }

    @Test func aGuardedFetchOfAnOwnPortIsRefusedAndTheSameFetchUnguardedIsNot() async throws {
        try await withOwnAndOther { own, other, client in
            let url = "http://127.0.0.1:\(own.port)/seg.ts"
            let refused = try #require(await refusal(client, UpstreamRequest(url: url, guardAddresses: true)))
            #expect(refused.address == "127.0.0.1:\(own.port)")
            #expect(refused.reason == "this proxy's own port on loopback")
            #expect(refused.description.contains(url))
            #expect(refused.description.contains("127.0.0.1:\(own.port)"))
            #expect(refused.description.contains("set forward.allowPrivateTargets in the configuration"))
            #expect(own.connectionsAccepted == 0)

            // A failed transfer's handle is not reused; a guarded transfer that succeeds gives its
            // handle back, and the next transfer on it does not keep the guard.
            let allowed = try await client.fetch(UpstreamRequest(url: "http://127.0.0.1:\(other.port)/seg.ts", guardAddresses: true))
            _ = try await readPattern(allowed.body)
            let unguarded = try await client.fetch(UpstreamRequest(url: url))
            #expect(try await readPattern(unguarded.body) == (30_000, true))
            #expect(client.easyHandlesCreated == 2)
            #expect(own.requestLog.count == 1)
        }
    }

    /// The unguarded fetch leaves an idle connection to the own port; the guarded one must not
    /// send its request over it (no socket is opened, so only the pre-request check sees it).
    @Test func aGuardedFetchDoesNotReuseAConnectionToAnOwnPort() async throws {
        try await withOwnAndOther { own, _, client in
            let url = "http://127.0.0.1:\(own.port)/seg.ts"
            let first = try await client.fetch(UpstreamRequest(url: url))
            #expect(try await readPattern(first.body) == (30_000, true))
            let refused = try #require(await refusal(client, UpstreamRequest(url: url, guardAddresses: true)))
            #expect(refused.address == "127.0.0.1:\(own.port)")
            #expect(own.requestLog.count == 1)
            #expect(own.connectionsAccepted == 1)
        }
    }

    @Test func aGuardedFetchOfAnotherLoopbackPortSucceeds() async throws {
        try await withOwnAndOther { own, other, client in
            let response = try await client.fetch(UpstreamRequest(url: other.baseURL + "/seg.ts", guardAddresses: true))
            #expect(response.status == 200)
            #expect(try await readPattern(response.body) == (30_000, true))
            #expect(own.connectionsAccepted == 0)
        }
    }

    @Test func aGuardedFetchRedirectedToAnOwnPortIsRefused() async throws {
        try await withOwnAndOther { own, other, client in
            let target = "http://127.0.0.1:\(own.port)/seg.ts"
            other.route("/master.m3u8", .redirect(status: 302, location: target))
            let url = other.baseURL + "/master.m3u8"
            let refused = try #require(await refusal(client, UpstreamRequest(url: url, followRedirects: true, guardAddresses: true)))
            #expect(refused.address == "127.0.0.1:\(own.port)")
            #expect(refused.reason.contains("reached by a redirect to \(target)"))
            #expect(other.requestLog.map(\.path) == ["/master.m3u8"])
            #expect(own.connectionsAccepted == 0)

            // Unguarded, the redirect is followed to the own port.
            let followed = try await client.fetch(UpstreamRequest(url: url, followRedirects: true))
            #expect(followed.effectiveURL == target)
            #expect(try await readPattern(followed.body) == (30_000, true))
        }
    }

    /// No socket is made for the metadata address: the fetch fails at once, not after the
    /// connect timeout (two minutes here), whether the name is a literal or resolves to it.
    @Test(.timeLimit(.minutes(3)))
    func theMetadataAddressIsRefusedWithoutConnecting() async throws {
        try await withOwnAndOther(connectTimeout: .seconds(120)) { _, _, client in
            for url in ["http://169.254.169.254/latest/meta-data/", "http://169.254.169.254", "http://metadata.hlschaos.test/latest/meta-data/"] {
                let started = ContinuousClock.now
                let refused = try #require(await refusal(client, UpstreamRequest(url: url, guardAddresses: true)))
                #expect(ContinuousClock.now - started < .seconds(60), "\(url) waited for a connection")
                #expect(refused.address == "169.254.169.254:80")
                #expect(refused.reason == "the cloud metadata service's address")
            }
        }
    }

    @Test func theUnspecifiedAddressOfAnOwnPortIsRefused() async throws {
        try await withOwnAndOther { own, _, client in
            let url = "http://0.0.0.0:\(own.port)/seg.ts"
            let refused = try #require(await refusal(client, UpstreamRequest(url: url, guardAddresses: true)))
            #expect(refused.address == "0.0.0.0:\(own.port)")
            #expect(refused.reason.contains("unspecified address"))
            #expect(own.connectionsAccepted == 0)
        }
    }

    /// A listener bound to port 0 is known only once bound: its port is added to the running
    /// client, and guarded fetches are refused from then on, whichever spelling of loopback the
    /// URL uses (libcurl resolves `127.1` and `2130706433` to 127.0.0.1).
    @Test func aPortAddedWhileTheClientRunsIsRefusedFromThenOn() async throws {
        try await withOwnAndOther { _, other, client in
            let before = try await client.fetch(UpstreamRequest(url: "http://127.0.0.1:\(other.port)/seg.ts", guardAddresses: true))
            #expect(try await readPattern(before.body) == (30_000, true))
            #expect(!client.listeningPorts.contains(other.port))
            client.listeningPorts.add(other.port)
            #expect(client.listeningPorts.contains(other.port))
            for host in ["127.0.0.1", "127.1", "2130706433", "localhost"] {
                let refused = try #require(await refusal(client, UpstreamRequest(url: "http://\(host):\(other.port)/seg.ts", guardAddresses: true)))
                #expect(refused.reason.contains("own port"), "\(host)")
            }
            #expect(other.requestLog.count == 1)
            #expect(client.listeningPorts.refusal(address: "127.0.0.1", port: other.port) == .ownPortOnLoopback)
            #expect(client.listeningPorts.refusal(address: "[::1]", port: other.port) == .ownPortOnLoopback)
            #expect(client.listeningPorts.refusal(address: "[fe80::1]", port: 443) == .linkLocal)
            #expect(client.listeningPorts.refusal(address: "192.0.2.1", port: other.port) == nil)
            #expect(client.listeningPorts.refusal(address: "cdn.example", port: other.port) == nil)
        }
    }

    @Test func anOwnPortOutsideThePortRangeIsRefusedAtInit() {
        for port in [0, 65536, -1] {
            do {
                _ = try UpstreamClient(configuration: UpstreamConfiguration(addressGuard: AddressGuard(ownPorts: [8080, port])))
                Issue.record("init accepted own port \(port)")
            } catch {
                #expect(error == .setup("addressGuard.ownPorts: \(port) is not a port (1 to 65535)"))
            }
        }
    }
}

/// The policy itself, through the same C function the callbacks call.
@Suite struct AddressPolicyTests {
    @Test(arguments: [
        ("169.254.169.254", 80, AddressRefusal.metadata),
        ("::ffff:169.254.169.254", 80, .metadata),
        ("fd00:ec2::254", 80, .metadata),
        ("169.254.0.1", 80, .linkLocal),
        ("169.254.255.255", 8080, .linkLocal),
        ("fe80::1", 443, .linkLocal),
        ("febf::1", 443, .linkLocal),
        ("127.0.0.1", 8080, .ownPortOnLoopback),
        ("127.10.0.3", 8080, .ownPortOnLoopback),
        ("::1", 9090, .ownPortOnLoopback),
        ("::ffff:127.0.0.1", 8080, .ownPortOnLoopback),
        ("0.0.0.0", 8080, .ownPortOnUnspecified),
        ("::", 9090, .ownPortOnUnspecified),
        ("::ffff:0.0.0.0", 8080, .ownPortOnUnspecified),
    ] as [(String, Int, AddressRefusal)])
    func refused(address: String, port: Int, refusal: AddressRefusal) throws {
        let policy = try AddressPolicy(AddressGuard(ownPorts: [8080, 9090]))
        #expect(policy.refusal(address: address, port: port) == refusal)
    }

    @Test(arguments: [
        ("127.0.0.1", 8081), ("::1", 80), ("0.0.0.0", 80), ("10.0.0.1", 8080), ("192.168.1.20", 443),
        ("203.0.113.7", 8080), ("fec0::1", 80), ("fd00:ec2::253", 80), ("2001:db8::1", 9090), ("169.253.169.254", 80),
    ] as [(String, Int)])
    func allowed(address: String, port: Int) throws {
        let policy = try AddressPolicy(AddressGuard(ownPorts: [8080, 9090]))
        #expect(policy.refusal(address: address, port: port) == nil)
    }

    @Test func linkLocalIsAllowedWhenNotRefused() throws {
        let policy = try AddressPolicy(AddressGuard(refuseLinkLocal: false, ownPorts: [8080]))
        #expect(policy.refusal(address: "169.254.169.254", port: 80) == nil)
        #expect(policy.refusal(address: "fe80::1", port: 80) == nil)
        #expect(policy.refusal(address: "127.0.0.1", port: 8080) == .ownPortOnLoopback)
    }

    /// Every address of this machine's interfaces, from getifaddrs as the policy reads them.
    @Test func theMachinesOwnAddressesAreRefusedOnOwnPorts() throws {
        let policy = try AddressPolicy(AddressGuard(ownPorts: [8080]))
        let addresses = Self.interfaceAddresses()
        #expect(policy.interfaceAddressCount == addresses.count)
        for address in addresses where !address.hasPrefix("127.") && address != "::1" && !address.hasPrefix("fe80") {
            #expect(policy.refusal(address: address, port: 8080) == .ownPortOnInterface, "\(address)")
            #expect(policy.refusal(address: address, port: 8081) == nil, "\(address)")
        }
    }

    private static func interfaceAddresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>? = nil
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var addresses: [String] = []
        var entry = list
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let address = current.pointee.ifa_addr else { continue }
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(address, length, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let numeric = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            addresses.append(String(numeric.prefix { $0 != "%" }))
        }
        return addresses
    }
}
