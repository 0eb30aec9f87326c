/// Runs `body`, then `teardown`, awaited whether `body` returned or threw: what a test started is
/// stopped before the test ends, so the next one does not start beside it (a
/// `defer { Task { … } }` stops it some time later, unawaited).
///
///     let client = try UpstreamClient(configuration: configuration)
///     try await withTeardown { await client.shutdown() } run: {
///         try await body(origin, client)
///     }
///
/// A server has a scoped form over `withStarted` below (`TestOrigin.with { origin in … }`).
public func withTeardown<Result>(
    isolation: isolated (any Actor)? = #isolation,
    _ teardown: () async throws -> Void,
    run body: () async throws -> Result
) async throws -> Result {
    let result: Result
    do {
        result = try await body()
    } catch {
        try? await teardown()
        throw error
    }
    try await teardown()
    return result
}

/// Starts a server with `start`, runs `body` with it, then stops it with `stop`, awaited whether
/// `body` returned or threw: the one mechanism behind the test servers' scoped forms
/// (`TestOrigin.with`, `ProxyHarness.with`, …). `stop` must tolerate a second stop, for a test that
/// stops the server itself in the middle (to see what happens when the origin goes away).
public func withStarted<Server, Result>(
    isolation: isolated (any Actor)? = #isolation,
    _ start: () async throws -> Server,
    stop: (Server) async throws -> Void,
    run body: (Server) async throws -> Result
) async throws -> Result {
    let server = try await start()
    return try await withTeardown(isolation: isolation) { try await stop(server) } run: { try await body(server) }
}

/// Runs `body`; when it throws, `rollback` runs before the error goes on: for a start made of
/// steps, so that a step that fails stops what the steps before it started (a harness's origin
/// when its proxy cannot bind, say). Nothing is undone when `body` returns.
public func withRollback<Result>(
    isolation: isolated (any Actor)? = #isolation,
    _ rollback: () async throws -> Void,
    run body: () async throws -> Result
) async throws -> Result {
    do {
        return try await body()
    } catch {
        try? await rollback()
        throw error
    }
}
