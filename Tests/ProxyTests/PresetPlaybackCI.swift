/// The preset × player cells the test suite plays (CI's player phase): each player on one preset of
/// every fault family, with the checks of that preset's plan. The full sweep
/// (every preset with both players here: `PRESET_PLAYBACK=all`; every preset with every player:
/// `hlschaos matrix`) is run on demand — docs/testing.md lists the cells by family.
extension PresetPlaybackCatalog {
    enum Player: String, CaseIterable, Sendable {
        case ffmpeg, hlsjs
    }

    enum Family: String, CaseIterable, Sendable {
        case status = "HTTP status codes"
        case timeout = "timeouts and hangs"
        case playlistDamage = "playlist damage"
        case staleLive = "stale or frozen live playlists"
        case gap = "EXT-X-GAP"
        case strip = "stripped variants or renditions"
        case failover = "backup failover"
        case throttle = "throttled bandwidth"
        case bodyDamage = "reset, truncated or corrupted bodies"
        case contentSteering = "content steering"
        case link = "the device's link"

        /// The players that support what the family faults: ffmpeg ignores content steering.
        var players: [Player] { self == .contentSteering ? [.hlsjs] : Player.allCases }
    }

    struct Cell: Sendable {
        var preset: String
        var player: Player
        var family: Family
    }

    /// Within a family, VOD presets (hls.js plays them at 8×, ffmpeg as fast as it decodes) are
    /// preferred to live ones (played in real time), and the two players get different presets
    /// where the family has several.
    static let ciCells: [Cell] = [
        Cell(preset: "status-503", player: .ffmpeg, family: .status),
        Cell(preset: "timeout-segment", player: .ffmpeg, family: .timeout),
        Cell(preset: "session-data-format-error", player: .ffmpeg, family: .playlistDamage),
        Cell(preset: "stale-live-freeze", player: .ffmpeg, family: .staleLive),
        Cell(preset: "gap", player: .ffmpeg, family: .gap),
        Cell(preset: "strip-audio-rendition", player: .ffmpeg, family: .strip),
        Cell(preset: "failover-backup", player: .ffmpeg, family: .failover),
        Cell(preset: "throttle-downswitch", player: .ffmpeg, family: .throttle),
        Cell(preset: "truncated-segment", player: .ffmpeg, family: .bodyDamage),
        Cell(preset: "link-high-latency", player: .ffmpeg, family: .link),

        Cell(preset: "status-404", player: .hlsjs, family: .status),
        Cell(preset: "timeout-segment", player: .hlsjs, family: .timeout),
        Cell(preset: "playlist-format-error", player: .hlsjs, family: .playlistDamage),
        Cell(preset: "live-lag", player: .hlsjs, family: .staleLive),
        Cell(preset: "gap", player: .hlsjs, family: .gap),
        Cell(preset: "strip-variant", player: .hlsjs, family: .strip),
        Cell(preset: "failover-backup", player: .hlsjs, family: .failover),
        Cell(preset: "throttle-downswitch", player: .hlsjs, family: .throttle),
        Cell(preset: "reset-mid-segment", player: .hlsjs, family: .bodyDamage),
        Cell(preset: "link-drop-below-lowest", player: .hlsjs, family: .link),
        // ffmpeg ignores content steering: only hls.js has a cell.
        Cell(preset: "steering-pathway-down", player: .hlsjs, family: .contentSteering),
    ]
}
