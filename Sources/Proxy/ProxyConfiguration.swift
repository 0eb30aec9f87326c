import Addressing
import Chaos
import Foundation
import Records
import Upstream

/// Everything the data plane needs to run, already validated (the config file's part for the data
/// plane: `AppSettings.proxy`).
public struct ProxyConfiguration: Sendable {
    public var host: String = "0.0.0.0"
    public var port: Int = 8080
    /// The origin for entry paths without `/@name` (`--upstream`). Its path is a prefix:
    /// with `http://cdn/live`, `/x/master.m3u8` fetches `http://cdn/live/x/master.m3u8`.
    public var defaultOrigin: UpstreamLocation?
    /// Named origins, reached as `/@name/<path>`.
    public var origins: [String: UpstreamLocation] = [:]
    /// Total time allowed to fetch a playlist (segments have no total limit; they may be long).
    public var playlistTimeout: TimeInterval = 15
    /// Largest playlist the proxy reads into memory to rewrite.
    public var maxPlaylistBytes: Int = 8 * 1024 * 1024
    /// Every session's link unless its layers give one (`serve --link`, config `link`).
    public var link: LinkChoice?
    /// Sessions without requests for this long are forgotten.
    public var sessionIdleTimeout: TimeInterval = 30 * 60
    /// Add `Access-Control-Allow-Origin: *` where the origin sent none and answer CORS preflights,
    /// so browser players (hls.js, Shaka) on another origin can play through the proxy.
    public var cors: Bool = true
    /// libcurl settings for origin fetches: connect and first-byte timeouts, pool size, TLS.
    public var upstream = UpstreamConfiguration()
    /// Every request's record is appended to this file as JSON Lines (`--events FILE`).
    public var eventsFile: String?
    /// Past this size the events file is renamed to FILE.1 and a new one begins.
    public var eventsFileMaxBytes: Int = 100 * 1024 * 1024
    /// Every session's requests are kept in this recording bundle (`--record BUNDLE`): a directory,
    /// or a `.tar` file it is packed into when the proxy stops.
    public var recordPath: String?
    /// Recordings (`--record` and those started through the control API) drop cookies,
    /// Authorization and query tokens before writing (docs/recordings.md).
    public var recordRedact = false
    /// Where recordings started through the control API are written (created when first needed).
    public var recordingsDirectory = "recordings"
    /// A recording stops once its bodies and exchanges reach this many bytes (nil: no cap).
    public var recordMaxBytes: Int? = 10 * 1024 * 1024 * 1024
    /// How long a shutdown (SIGINT, SIGTERM) lets in-flight responses finish before closing them.
    public var shutdownTimeout: TimeInterval = 10
    /// Client connections: timeouts and sizes that keep a misbehaving client from holding resources.
    public var clients = ClientLimits()
    /// Caps on what the proxy keeps in memory (config.example.json gives the reasons).
    public var memory = MemoryLimits()
    /// Forward-proxy mode (`--forward`, config `forward`): devices whose proxy setting points here.
    public var forward = ForwardSettings()
    /// Take the `CMCD` query argument and the `CMCD-*` headers off requests before the upstream fetch
    /// (config `stripCMCD`; a session may say otherwise through the control API). Off: the origin
    /// gets them unchanged (CDNs log and bill on them).
    public var stripCMCD = false
    /// The field device's player timeline of the HAR import being replayed (`hlschaos replay`,
    /// `player.json`): every session's reaction report shows it beside the session's own player.
    public var fieldPlayer: PlayerTimeline?
    /// The HTTPS listener of the reverse proxy (`--https-port`, config `https`); nil: none.
    public var https: HTTPSSettings?

    public struct ForwardSettings: Sendable, Equatable {
        public var enabled = false
        /// Proxy users and their passwords (`Proxy-Authorization: Basic`). A user name is a session
        /// (`tv1`, or `tv1+status-503` to add presets); the password is looked up by the session part.
        public var users: [String: String] = [:]
        /// One password for any user name (instead of, or besides, `users`).
        public var sharedPassword: String?
        /// Clients from these networks need no credentials (their proxy user, if any, still names the session).
        public var allowNetworks: [NetworkRange] = NetworkRange.loopback
        /// Hosts whose `CONNECT` is intercepted: TLS terminated with a leaf from the local CA, requests
        /// through the rules. `cdn.example.com`, `*.example.com` or `*`. Hosts that intercepted or
        /// configured playlists point to are intercepted too.
        public var intercept: [String] = []
        /// `CONNECT` to any other host: a blind byte tunnel (true), or refused with 403 (false).
        public var tunnel = true
        /// Lets forward requests reach this machine's own listeners and link-local addresses (the cloud
        /// metadata service among them); off, such targets get 403.
        public var allowPrivateTargets = false
        /// A device whose requests carry a CMCD session id (`sid`) is put in a session of its own,
        /// `<device session>.<sid>` (docs/cmcd.md): two apps on one phone are two sessions.
        public var sessionFromCMCD = false
        public init() {}

        /// Whether any credentials are configured (else every client must come from `allowNetworks`).
        var hasPasswords: Bool { !users.isEmpty || sharedPassword != nil }
    }

    public struct HTTPSSettings: Sendable, Equatable {
        public var port: Int
        /// A certificate chain and key of the user's (PEM files); nil: a leaf from the local CA for
        /// this machine's names and addresses.
        public var certificateFile: String?
        public var keyFile: String?
        public init(port: Int, certificateFile: String? = nil, keyFile: String? = nil) {
            self.port = port
            self.certificateFile = certificateFile
            self.keyFile = keyFile
        }
    }

    public struct ClientLimits: Sendable, Equatable {
        /// A connection that has begun a request must send the complete head within this (408, close).
        public var requestHeadTimeout: TimeInterval = 10
        /// An idle keep-alive connection (no request in progress or begun) is closed after this.
        public var keepAliveTimeout: TimeInterval = 75
        /// Connections beyond this many are closed as soon as they are accepted.
        public var maxConnections: Int = 4096
        /// A request head larger than this is answered 431 and the connection closed.
        public var maxRequestHeadBytes: Int = 32 * 1024
        public init() {}
    }

    public struct MemoryLimits: Sendable, Equatable {
        /// Live sessions; the least recently used one is forgotten to make room for a new one.
        public var maxSessions: Int = 10_000
        /// Playlist versions kept per session for `freeze` and `lag`, in bytes (oldest evicted).
        public var playlistHistoryBytes: Int = 4 * 1024 * 1024
        /// Rewritten playlists shared between sessions, in bytes (oldest evicted).
        public var rewriteCacheBytes: Int = 64 * 1024 * 1024
        /// Hosts learned from playlists (CDNs an origin's playlists point to).
        public var maxLearnedHosts: Int = 10_000
        /// Request records kept in memory, newest first, across sessions (`RecordRing`: 768 bytes reserved per record).
        public var recordBufferSize: Int = 50_000
        public init() {}
    }

    public init() {}

    /// Whether TLS is terminated anywhere (the local CA is then needed).
    public var needsCertificates: Bool { (https != nil && https?.certificateFile == nil) || forward.enabled }

    public var allOrigins: [UpstreamLocation] {
        (defaultOrigin.map { [$0] } ?? []) + origins.values.sorted { $0.url < $1.url }
    }

    /// The upstream URL of an entry path: the origin's path prefix joined with the request's path.
    func resolve(origin name: String?, pathAndQuery: String) -> UpstreamLocation? {
        guard let origin = name.map({ origins[$0] }) ?? defaultOrigin else { return nil }
        let prefix = origin.path.utf8.last == UInt8(ascii: "/") ? origin.path.dropLast() : origin.path
        // The origin's scheme and authority were checked when the configuration was read.
        return origin.with(pathAndQuery: prefix.isEmpty ? pathAndQuery : prefix + pathAndQuery)
    }
}
