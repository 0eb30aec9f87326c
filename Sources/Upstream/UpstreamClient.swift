/// Streaming HTTP client for origins, over libcurl. One curl multi handle on a dedicated thread
/// serves every request; connections are pooled per host and reused.
public final class UpstreamClient: Sendable {
    public let configuration: UpstreamConfiguration
    /// Internal for tests that drive transfers and loop commands directly.
    let loop: CurlLoop

    /// Starts the curl thread. Throws `.setup` for a bad `resolve` entry, `extraCAFile` or
    /// `addressGuard` port, naming it.
    public convenience init(configuration: UpstreamConfiguration = .init()) throws(UpstreamError) {
        try self.init(configuration: configuration, systemCABundle: CABundle.defaultSystemBundlePath())
    }

    /// `systemCABundle`: the bundle `extraCAFile` adds to (tests give their own).
    init(configuration: UpstreamConfiguration, systemCABundle: String?) throws(UpstreamError) {
        self.configuration = configuration
        self.loop = try CurlLoop(configuration: configuration, systemCABundle: systemCABundle)
        loop.start()
    }

    deinit {
        loop.requestShutdown()
    }

    /// Cancels every transfer and waits for the curl thread to end. Later fetches fail with `.setup`.
    public func shutdown() async {
        await loop.shutdown()
    }

    /// Transfers currently running on the curl thread (tests, metrics).
    var activeTransferCount: Int { loop.activeCount.load(ordering: .relaxed) }
    /// Curl easy handles made so far; finished transfers hand theirs on (tests).
    var easyHandlesCreated: Int { loop.handles.createdCount }

    /// Returns once the response head has arrived (status and headers); the body streams afterwards.
    public func fetch(_ request: UpstreamRequest) async throws(UpstreamError) -> UpstreamResponse {
        let transfer = try Transfer(request: request, configuration: configuration, loop: loop)
        return try await transfer.start().get()
    }
}
