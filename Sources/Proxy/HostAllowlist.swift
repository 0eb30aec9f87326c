import NIOConcurrencyHelpers

/// The hosts the proxy may fetch from: the configured origins, plus every host that a playlist
/// fetched from an allowed host points to. Anything else is refused, so hlschaos is not an open relay.
public final class HostAllowlist: Sendable {
    /// Learned hosts beyond this many are not added; a playlist pointing at thousands of hosts is abuse.
    public static let learnedLimit = 10_000
    private let configured: Set<String>
    private let learned = NIOLockedValueBox(Set<String>())

    public init(origins: [UpstreamLocation]) {
        configured = Set(origins.map(\.normalizedAuthority))
    }

    public func allows(_ location: UpstreamLocation) -> Bool {
        let key = location.normalizedAuthority
        return configured.contains(key) || learned.withLockedValue { $0.contains(key) }
    }

    /// Records a host named in a playlist that was itself fetched from an allowed host.
    public func learn(_ location: UpstreamLocation) {
        let key = location.normalizedAuthority
        guard !configured.contains(key) else { return }
        learned.withLockedValue { hosts in
            if hosts.count < Self.learnedLimit { hosts.insert(key) }
        }
    }
}
