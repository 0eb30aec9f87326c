/// Waits for `condition` to hold, checking it every `interval`, for at most `timeout`; returns
/// whether it held. For what a test cannot be told directly (a counter moving, a state reached on
/// another thread). The default timeout is what a loaded two-core CI machine needs, not what the
/// condition usually takes: a test that holds waits only as long as it must.
public func eventually(
    timeout: Duration = .seconds(30), interval: Duration = .milliseconds(20), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}
