import Foundation

/// The bundled media files, loaded into memory once (about 13 MB), keyed by their path
/// relative to the media folder, e.g. `ts/v0/s000.ts`.
struct MediaLibrary: Sendable {
    let files: [String: Data]

    /// The resource folder SwiftPM lays out beside the binary it builds (`.build/release/`), and
    /// which an install copies along with the binary.
    static let resourceFolder = "hlschaos_DemoOrigin.resources"

    /// Where the media are looked for: beside the binary, then in the checkout it was built from.
    /// (Not `Bundle.module`, which ends the process when its bundle is not found: a binary copied to
    /// another machine must say what is missing, not crash.)
    static var searchPath: [URL] {
        [
            Bundle.main.bundleURL.appendingPathComponent(resourceFolder).appendingPathComponent("Media"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Media"),
        ]
    }

    static func bundled() throws -> MediaLibrary {
        let folders = searchPath
        let hasFiles = { (folder: URL) in !((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).isEmpty }
        guard let root = folders.first(where: hasFiles) else {
            throw DemoOriginError.mediaNotInstalled(searched: folders.map(\.path), resourceFolder: resourceFolder)
        }
        return try load(from: root)
    }

    static func load(from root: URL) throws -> MediaLibrary {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw DemoOriginError.mediaFolderMissing(path: root.path)
        }
        let subpaths: [String]
        do {
            subpaths = try fileManager.subpathsOfDirectory(atPath: root.path)
        } catch {
            throw DemoOriginError.unreadableFile(path: root.path, reason: "\(error)")
        }
        var files: [String: Data] = [:]
        for subpath in subpaths where !subpath.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
            let url = root.appendingPathComponent(subpath)
            guard fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                continue
            }
            do {
                files[subpath] = try Data(contentsOf: url)
            } catch {
                throw DemoOriginError.unreadableFile(path: url.path, reason: "\(error)")
            }
        }
        if files.isEmpty {
            throw DemoOriginError.mediaFolderMissing(path: root.path)
        }
        return MediaLibrary(files: files)
    }
}
