import Addressing
import NIOConcurrencyHelpers

/// The hosts the proxy may fetch from: the configured origins, plus every host that a playlist
/// fetched from an allowed host points to. Anything else is refused, so hlschaos is not an open relay.
public final class HostAllowlist: Sendable {
    /// Learned hosts beyond this many are not added; a playlist pointing at thousands of hosts is abuse.
    public let learnedLimit: Int
    private let configured: Set<String>
    private let learned = NIOLockedValueBox(Set<String>())
    private let notice: LimitNotice?

    public convenience init(origins: [UpstreamLocation], learnedLimit: Int = 10_000) {
        self.init(origins: origins, learnedLimit: learnedLimit, notice: nil)
    }

    init(origins: [UpstreamLocation], learnedLimit: Int, notice: LimitNotice?) {
        configured = Set(origins.map(\.normalizedAuthority))
        self.learnedLimit = learnedLimit
        self.notice = notice
    }

    public func allows(_ location: UpstreamLocation) -> Bool {
        let key = location.normalizedAuthority
        return configured.contains(key) || learned.withLockedValue { $0.contains(key) }
    }

    /// True when no more hosts can be learned (a refusal then says so).
    public var isFull: Bool { learned.withLockedValue { $0.count >= learnedLimit } }

    /// Records a host named in a playlist that was itself fetched from an allowed host.
    public func learn(_ location: UpstreamLocation) {
        let key = location.normalizedAuthority
        guard !configured.contains(key) else { return }
        let refused = learned.withLockedValue { hosts -> Bool in
            if hosts.count < learnedLimit { hosts.insert(key) }
            return !hosts.contains(key)
        }
        if refused { notice?.hit { "\($0) host(s) named in playlists not allowed: \(learnedLimit) learned hosts are kept" } }
    }
}
