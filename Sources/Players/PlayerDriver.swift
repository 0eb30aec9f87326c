import Foundation
import PlayerReports

/// One kind of player: how to tell whether it is installed, and how to play a URL with it and read
/// what it did. Drivers never throw for a player that fails to play: that is an outcome.
public protocol PlayerDriver: Sendable {
    /// The name given to `--player` ("ffmpeg", "gstreamer", "hlsjs", …), or a custom player's
    /// ("streamlink"): what verdicts, JUnit and the matrix call it.
    var name: String { get }
    /// What a scenario's expectations call it (`"players"` in an expectation): `name` for a
    /// built-in driver, `PlayerNames.custom` for every custom player.
    var expectationName: String { get }
    /// One line for `--help` and the matrix: what runs, with which engine.
    var summary: String { get }
    /// Whether it can run here, and if not, the command that installs it.
    func availability() async -> PlayerAvailability
    /// Plays `request.url` until it ends, fails, stalls or the time runs out.
    func play(_ request: PlayRequest) async -> PlayerReport
    /// Whether it honours `PlayRequest.proxy`: trusts the proxy's CA root given as a file, and
    /// fetches through an HTTP proxy (CONNECT for https) when one is given. Runs `--via forward`
    /// and `--via https` need it.
    var playsThroughProxy: Bool { get }
    /// Whether it plays an LL-HLS stream as LL (`LowLatencyPlayback`).
    var lowLatency: LowLatencyPlayback { get }
    /// Whether it follows content steering (`ContentSteeringPlayback`).
    var contentSteering: ContentSteeringPlayback { get }
}

extension PlayerDriver {
    public var expectationName: String { name }
    public var playsThroughProxy: Bool { false }
    public var lowLatency: LowLatencyPlayback { .unknown }
    public var contentSteering: ContentSteeringPlayback { .unknown }
}

/// How a player reaches the proxy over TLS, as a device set up for it does: it trusts `caFile`
/// (the proxy's local CA root, PEM), and with `url` it sends every request to that forward proxy
/// (https ones as `CONNECT` tunnels, whose hosts the proxy intercepts with leaves of that CA).
/// Without `url` it opens the proxy's HTTPS listener directly (`--via https`).
public struct PlayerProxy: Sendable, Equatable {
    /// "http://127.0.0.1:<port>", or nil for no forward proxy.
    public var url: String?
    /// The root certificate the player must trust, PEM.
    public var caFile: String

    public init(url: String?, caFile: String) { self.url = url; self.caFile = caFile }
}

public enum PlayerAvailability: Sendable, Equatable {
    case ready(version: String)
    /// `install` is a command a user can paste (`apt-get install -y ffmpeg`).
    case missing(reason: String, install: String)
}

public struct PlayRequest: Sendable {
    public var url: String
    /// The run's time limit in seconds; the driver stops the player then (outcome `timedOut`, or
    /// `played` for a live stream that was still playing).
    public var timeout: Double
    /// A live stream: there is no end to reach; playing until the time limit is success.
    public var live: Bool
    /// A directory of the run's own for logs and scratch files (kept as evidence).
    public var workDirectory: URL
    /// Trust this root, and fetch through this forward proxy when it has a URL (only for drivers
    /// whose `playsThroughProxy` is true).
    public var proxy: PlayerProxy?

    public init(url: String, timeout: Double, live: Bool, workDirectory: URL, proxy: PlayerProxy? = nil) {
        self.url = url; self.timeout = timeout; self.live = live; self.workDirectory = workDirectory; self.proxy = proxy
    }
}
