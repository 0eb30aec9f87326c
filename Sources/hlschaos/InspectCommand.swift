import ArgumentParser
import Foundation
import HLS
import Upstream

/// `hlschaos inspect FILE|URL [--json] [--strict]`: summarises a playlist read from a file or
/// fetched over http(s) through libcurl.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show the variants, renditions or segments of an HLS playlist.",
        discussion: """
            Reads FILE (a .m3u8 playlist) or fetches an http(s) URL (redirects followed, the final URL \
            is the base for relative URIs; a URL on a running hlschaos shows the playlist as a device \
            gets it) and prints a summary: variants, renditions, I-frame \
            variants and session data for a multivariant playlist, one row per segment for a \
            media playlist. Problems the lenient parser tolerated are listed on stderr. \
            Exit code 1 when the input is not a valid playlist.
            """)

    @Argument(help: "Path of the playlist file, or its http(s) URL.")
    var file: String

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Flag(help: "Fail on the first problem instead of tolerating it.")
    var strict = false

    func run() async throws {
        let (data, url) = try await load()
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

    private func load() async throws -> (Data, URL?) {
        let lowered = file.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            let url = URL(fileURLWithPath: file)
            do {
                return (try Data(contentsOf: url), url)
            } catch {
                fail("cannot read \(file): \(error.localizedDescription)")
            }
        }
        let client = try UpstreamClient()
        let result: Result<(status: Int, body: [UInt8], url: String), UpstreamError>
        do {
            let response = try await client.fetch(UpstreamRequest(
                url: file, followRedirects: true, decodeContent: true, totalTimeout: .seconds(30)))
            result = .success((response.status, try await response.body.collect(upTo: 64 * 1024 * 1024), response.effectiveURL))
        } catch {
            result = .failure(error)
        }
        await client.shutdown()
        switch result {
        case .failure(let error):
            fail("cannot fetch \(file): \(error)")
        case .success(let fetched) where !(200..<300).contains(fetched.status):
            fail("\(file) answered HTTP \(fetched.status): \(String(decoding: fetched.body.prefix(200), as: UTF8.self))")
        case .success(let fetched):
            return (Data(fetched.body), URL(string: fetched.url))
        }
    }

    private func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        Foundation.exit(1)
    }
}
