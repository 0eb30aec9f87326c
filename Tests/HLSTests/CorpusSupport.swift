import Foundation
@testable import HLS

/// The playlists under Tests/HLSTests/Corpus.
enum Corpus {
    static var directory: URL {
        guard let url = Bundle.module.url(forResource: "Corpus", withExtension: nil) else {
            fatalError("Corpus resource is missing from the test bundle")
        }
        return url
    }

    /// Every `.m3u8` file, by path relative to the corpus folder, sorted.
    static func all() throws -> [(name: String, bytes: [UInt8])] {
        let root = directory
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var files: [(String, [UInt8])] = []
        for case let url as URL in enumerator where url.pathExtension == "m3u8" {
            let name = String(url.path.dropFirst(root.path.count + 1))
            files.append((name, Array(try Data(contentsOf: url))))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func playlist(_ name: String, url: String = "https://origin.example.com/path/to/playlist.m3u8") throws -> Playlist {
        try Playlist(bytes: bytes(name), url: URL(string: url))
    }
}
