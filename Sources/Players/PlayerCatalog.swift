import Foundation
import PlayerReports

/// The players `--player` can name, and the custom ones: a command with `{url}`, named after its
/// program or `NAME=COMMAND` (`CustomPlayerNames`).
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

    /// A `--player` value that names no player; `spec` is the value as given.
    public struct UnknownPlayer: Error, CustomStringConvertible {
        public var spec: String
        public var description: String
    }

    /// The players of one run, in order: built-in drivers by name, and custom players. Custom
    /// players get distinct names: an explicit name (`NAME=COMMAND`) must be new and not a built-in
    /// player's; a name taken from the program gets `-2`, `-3`, … when it is taken (two
    /// `streamlink` commands are `streamlink` and `streamlink-2`; an `ffmpeg …` command is `ffmpeg-2`).
    public static func drivers(_ specs: [String]) throws -> [any PlayerDriver] {
        var taken = Set<String>()
        var named: [Int: String] = [:]
        for (index, spec) in specs.enumerated() where builtIn(spec) == nil {
            guard let name = CustomPlayerNames.split(spec).name else { continue }
            do { try CustomPlayerNames.checkExplicit(name, taken: taken) } catch { throw UnknownPlayer(spec: spec, description: "\(error)") }
            taken.insert(name)
            named[index] = name
        }
        return try specs.enumerated().map { index, spec in
            if let driver = builtIn(spec) { return driver }
            let command = CustomPlayerNames.split(spec).command
            guard command.contains(CommandTemplate.placeholder) else { throw unknown(spec, command: command) }
            do {
                let template = try CommandTemplate(command)
                let name = named[index]
                    ?? CustomPlayerNames.unique(CustomPlayerNames.derived(fromProgram: template.executable), taken: taken)
                taken.insert(name)
                return CommandDriver(template, name: name)
            } catch {
                throw UnknownPlayer(spec: spec, description: "\(error)")
            }
        }
    }

    static func builtIn(_ name: String) -> (any PlayerDriver)? {
        all.first { $0.name == name }
    }

    private static func unknown(_ spec: String, command: String) -> UnknownPlayer {
        let named = command != spec
        let words = command.split(separator: " ").count
        let hint = named || words > 1 ? "; a command must contain {url} where the stream URL goes" : ""
        return UnknownPlayer(
            spec: spec,
            description: "no player of that name\(hint) (players: \(names.joined(separator: ", ")), or a command with {url}, optionally named: NAME=COMMAND)")
    }
}
