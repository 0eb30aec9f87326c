/// Runs `body`, then `teardown`, awaited whether `body` returned or threw: what a test started is
/// stopped before the test ends, so the next one does not start beside it (a
/// `defer { Task { … } }` stops it some time later, unawaited).
///
///     let server = try await ReplayFixtures.start(bundle)
///     try await withTeardown { await server.shutdown() } run: {
///         #expect(try await server.get("/a.ts").status == 200)
///     }
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
