/// Named links with the numbers of a known tool, so that "Slow 3G" means here what it means there.
///
/// Source of every figure: Chrome DevTools' throttling presets, `front_end/core/sdk/NetworkManager.ts`
/// in ChromeDevTools/devtools-frontend (read at commit 00d120bf0e61feb60bf7c31cf879454577904b77;
/// the 4G presets were added in June 2024, crbug.com/342406608, and "Fast 3G" was renamed "Slow 4G"
/// then). DevTools throttles per request, not per packet, so it multiplies its target figures by
/// adjustment factors (download × 0.8 or × 0.9, latency × 5, × 3.75 or × 2.75) to come closer to what
/// a packet-level link with those targets would give; the profiles take the figures DevTools
/// applies, because the link, like DevTools, adds its latency once per response head. The factors
/// stand for connection set-up and TCP slow start, so these profiles add no extra round trip for a
/// new connection. DevTools' own comments call the targets approximate ("~500Kbps", "~1.6 Mbps").
public struct LinkProfile: Sendable, Equatable {
    /// The name a spec gives (`{"profile": "slow-3g"}`).
    public var name: String
    /// The tool's own name for it.
    public var title: String
    public var rate: LinkRate
    public var latency: LinkLatency
    /// Where the numbers come from and how they were worked out.
    public var source: String

    public static let slow3G = LinkProfile(
        name: "slow-3g", title: "Chrome DevTools: Slow 3G",
        // download: 500 * 1000 / 8 * .8 bytes/s = 50,000 B/s = 400 kbit/s; latency: 400 ms RTT * 5.
        rate: LinkRate(bitsPerSecond: 400_000),
        latency: LinkLatency(base: .milliseconds(2000), newConnection: .zero),
        source: "Chrome DevTools Slow3GConditions (NetworkManager.ts): ~500 kbit/s × 0.8 = 400 kbit/s down, 400 ms target RTT × 5 = 2,000 ms per request")

    public static let slow4G = LinkProfile(
        name: "slow-4g", title: "Chrome DevTools: Slow 4G (formerly Fast 3G)",
        // download: 1.6 * 1000 * 1000 / 8 * .9 bytes/s = 180,000 B/s = 1.44 Mbit/s; latency: 150 ms * 3.75.
        rate: LinkRate(bitsPerSecond: 1_440_000),
        latency: LinkLatency(base: .microseconds(562_500), newConnection: .zero),
        source: "Chrome DevTools Slow4GConditions (NetworkManager.ts; \"Fast 3G\" until May 2024): ~1.6 Mbit/s × 0.9 = 1.44 Mbit/s down, 150 ms target RTT × 3.75 = 562.5 ms per request")

    public static let fast4G = LinkProfile(
        name: "fast-4g", title: "Chrome DevTools: Fast 4G",
        // download: 9 * 1000 * 1000 / 8 * .9 bytes/s = 1,012,500 B/s = 8.1 Mbit/s; latency: 60 ms * 2.75.
        rate: LinkRate(bitsPerSecond: 8_100_000),
        latency: LinkLatency(base: .milliseconds(165), newConnection: .zero),
        source: "Chrome DevTools Fast4GConditions (NetworkManager.ts, added June 2024): 9 Mbit/s × 0.9 = 8.1 Mbit/s down, 60 ms target RTT × 2.75 = 165 ms per request")

    public static let all: [LinkProfile] = [slow3G, slow4G, fast4G]

    /// Other names a profile answers to.
    static let aliases: [String: String] = ["fast-3g": "slow-4g"]

    public static func named(_ name: String) -> LinkProfile? {
        let name = aliases[name] ?? name
        return all.first { $0.name == name }
    }

    static var names: [String] { all.map(\.name) + aliases.keys.sorted() }
}
