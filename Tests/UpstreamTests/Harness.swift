import NIOCore
import TestSupport
@testable import Upstream

/// Runs `body` with a fresh loopback origin and client, and shuts both down afterwards.
func withOrigin(
    configuration: UpstreamConfiguration = .init(),
    _ body: (TestOrigin, UpstreamClient) async throws -> Void
) async throws {
    try await TestOrigin.with { origin in
        let client = try UpstreamClient(configuration: configuration)
        try await withTeardown { await client.shutdown() } run: { try await body(origin, client) }
    }
}

/// The error `operation` threw, or nil when it did not throw.
func upstreamError<T>(_ operation: () async throws(UpstreamError) -> T) async -> UpstreamError? {
    do {
        _ = try await operation()
        return nil
    } catch {
        return error
    }
}

/// Reads the whole body checking it against the generated pattern from `offset`; returns the byte count.
func readPattern(_ body: UpstreamBody, from offset: Int = 0) async throws -> (count: Int, intact: Bool) {
    var position = offset
    var intact = true
    for try await buffer in body {
        let chunk = Array(buffer: buffer)
        if intact, chunk != patternBytes(offset: position, count: chunk.count) { intact = false }
        position += chunk.count
    }
    return (position - offset, intact)
}
