import ArgumentParser
import Foundation
import HLS

/// `hlschaos inspect FILE [--json] [--strict]`: summarises a playlist read from a file.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show the variants, renditions or segments of an HLS playlist.",
        discussion: """
            Reads FILE (a .m3u8 playlist) and prints a summary: variants, renditions, I-frame \
            variants and session data for a multivariant playlist, one row per segment for a \
            media playlist. Problems the lenient parser tolerated are listed on stderr. \
            Exit code 1 when the input is not a valid playlist.
            """)

    @Argument(help: "Path of the playlist file.")
    var file: String

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Flag(help: "Fail on the first problem instead of tolerating it.")
    var strict = false

    func run() async throws {
        let url = URL(fileURLWithPath: file)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            FileHandle.standardError.write(Data("error: cannot read \(file): \(error.localizedDescription)\n".utf8))
            throw ExitCode(1)
        }
        let playlist: Playlist
        do {
            playlist = try Playlist(bytes: data, url: url, strict: strict)
        } catch {
            FileHandle.standardError.write(Data("error: \(file): \(error.description)\n".utf8))
            throw ExitCode(1)
        }
        for warning in playlist.warnings {
            FileHandle.standardError.write(Data("warning: \(file): \(warning.description)\n".utf8))
        }
        print(json ? playlist.inspectionJSON() : playlist.inspectionTable(), terminator: json ? "\n" : "")
    }
}
