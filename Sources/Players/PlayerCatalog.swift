import Foundation
import PlayerReports

/// The players `--player` can name, and the `{url}` command form.
public enum PlayerCatalog {
    /// Every built-in driver, in the order of `PlayerNames.drivers` (a test holds them equal).
    public static let all: [any PlayerDriver] = [
        FFmpegDriver(),
        GStreamerDriver(.playbin3),
        GStreamerDriver(.legacy),
        VLCDriver(),
        MPVDriver(),
        BrowserDriver.hlsjs,
        BrowserDriver.vhs,
    ]

    public static var names: [String] { all.map(\.name) }

    public struct UnknownPlayer: Error, CustomStringConvertible {
        public var description: String
    }

    /// A built-in driver by name, or a command template with `{url}` in it.
    public static func driver(named name: String) throws -> any PlayerDriver {
        if let driver = all.first(where: { $0.name == name }) { return driver }
        if name.contains("{url}") { return try CommandDriver(template: name) }
        let words = name.split(separator: " ").count
        let hint = words > 1 ? "; a command must contain {url} where the stream URL goes" : ""
        throw UnknownPlayer(description: "no player of that name\(hint) (players: \(names.joined(separator: ", ")), or a command with {url})")
    }
}
