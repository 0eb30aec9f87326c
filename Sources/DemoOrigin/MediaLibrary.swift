import Foundation

/// The bundled media files, loaded into memory once (about 13 MB), keyed by their path
/// relative to the media folder, e.g. `ts/v0/s000.ts`.
struct MediaLibrary: Sendable {
    let files: [String: Data]

    static func bundled() throws -> MediaLibrary {
        guard let root = Bundle.module.url(forResource: "Media", withExtension: nil) else {
            throw DemoOriginError.mediaFolderMissing(path: Bundle.module.bundlePath + "/Media")
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
