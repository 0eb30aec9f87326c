import ArgumentParser
import Foundation
import HLS
import BundleFormat
import Upstream

/// `hlschaos inspect FILE|URL|BUNDLE [--json] [--strict]`: summarises a playlist read from a file or
/// fetched over http(s) through libcurl, or a recording bundle.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show the variants, renditions or segments of an HLS playlist, or summarise a recording bundle.",
        discussion: """
            Reads FILE (a .m3u8 playlist) or fetches an http(s) URL (redirects followed, the final URL \
            is the base for relative URIs; a URL on a running hlschaos shows the playlist as a device \
            gets it) and prints a summary: variants, renditions, I-frame \
            variants and session data for a multivariant playlist, one row per segment for a \
            media playlist. Problems the lenient parser tolerated are listed on stderr. \
            Exit code 1 when the input is not a valid playlist.

            Given a bundle (a directory holding bundle.json, or the .tar of one, as `hlschaos record` \
            writes them), prints its summary instead: source, entry, start, duration and why it \
            stopped, what it holds, the variants of the recorded master, each playlist's loads, \
            versions and media sequence numbers, and every failure with when it happened. Exit code 1 \
            when the bundle is broken (the message names the file and what is wrong).
            """)

    @Argument(help: "Path of the playlist file, its http(s) URL, or a recording bundle (directory or .tar).")
    var file: String

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Flag(help: "Fail on the first problem instead of tolerating it.")
    var strict = false

    func run() async throws {
        if Self.isBundle(file) {
            inspectBundle()
            return
        }
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

    /// A directory (only bundles are directories here), or a file that is a tar archive.
    static func isBundle(_ path: String) -> Bool {
        let lowered = path.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") { return false }
        var directory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &directory) else { return false }
        if directory.boolValue || lowered.hasSuffix(".tar") { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 265)) ?? Data()
        return head.count == 265 && head[257..<262].elementsEqual("ustar".utf8)
    }

    private func inspectBundle() {
        let summary: BundleSummary
        do {
            summary = try BundleSummary(RecordingBundle.open(file))
        } catch {
            fail(error.description)
        }
        print(json ? summary.json() : summary.text(), terminator: json ? "\n" : "")
    }

    private func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        Foundation.exit(1)
    }
}
