import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import Proxy

/// The table a shutdown works from: which connections are open, which are answering a request.
@Suite struct ConnectionRegistryTests {
    static func registry(limit: Int = .max) -> ConnectionRegistry {
        ConnectionRegistry(limit: limit, notice: LimitNotice(configKey: "maxClientConnections", logger: Logger(label: "test")))
    }

    static func openChannel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    @Test func aRequestStartsOnceAndEndsOnce() throws {
        let registry = Self.registry()
        let registration = try #require(registry.register(try Self.openChannel()))
        #expect(registry.markBusy(registration))
        #expect(!registry.markBusy(registration), "a second start while busy")
        #expect(registry.markIdle(registration))
        #expect(!registry.markIdle(registration), "a second end while idle")
        #expect(registry.markBusy(registration))
    }

    @Test func aShutdownClosesTheIdleConnectionsAndLetsTheBusyOnesFinish() throws {
        let registry = Self.registry()
        let idleChannel = try Self.openChannel(), busyChannel = try Self.openChannel()
        let idle = try #require(registry.register(idleChannel))
        let busy = try #require(registry.register(busyChannel))
        #expect(registry.markBusy(busy))
        registry.beginShutdown()
        #expect(!idleChannel.isActive, "an idle connection is closed at once")
        #expect(busyChannel.isActive, "a busy one finishes its response")
        #expect(!registry.markIdle(busy), "and then closes: its response is its last")
        #expect(!registry.markBusy(idle), "no request starts during a shutdown")
        let late = try Self.openChannel()
        _ = registry.register(late)
        #expect(!late.isActive, "a connection accepted during a shutdown is closed")
    }

    @Test func waitingForTheEndReturnsWhenTheLastConnectionGoes() async throws {
        let registry = Self.registry()
        let registration = try #require(registry.register(try Self.openChannel()))
        #expect(registry.markBusy(registration))
        registry.beginShutdown()
        async let emptied: Void = registry.waitUntilEmpty()
        registry.unregister(registration)
        await emptied
        #expect(registry.count == 0)
    }

    @Test func connectionsOverTheLimitAreNotRegistered() throws {
        let registry = Self.registry(limit: 1)
        #expect(registry.register(try Self.openChannel()) != nil)
        #expect(registry.register(try Self.openChannel()) == nil)
        #expect(registry.refusedCount == 1)
    }
}
