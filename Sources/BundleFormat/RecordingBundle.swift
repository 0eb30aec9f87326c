import Foundation
import Records

/// A bundle opened for reading (a directory, or the `.tar` made with `--archive`): the manifest and
/// every exchange in memory, bodies read from disk when asked for. Opening checks everything a
/// reader relies on — the manifest, each exchange line, that every referenced body is there with
/// its size — and says which file, line or entry is wrong.
public final class RecordingBundle: Sendable {
    public let location: String
    public let manifest: BundleManifest
    /// In the order they were written (the order responses ended).
    public let exchanges: [Exchange]
    private let storage: Storage

    private enum Storage: Sendable {
        case directory(URL)
        case archive(path: String, entries: [String: TarEntry])
    }

    private struct TarEntry: Sendable { var offset: UInt64; var size: Int }

    public static func open(_ path: String) throws(BundleError) -> RecordingBundle {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw BundleError(path, "does not exist (give the directory made by `hlschaos record --out`, or its .tar)")
        }
        if isDirectory.boolValue {
            return try RecordingBundle(location: path, storage: .directory(URL(fileURLWithPath: path)))
        }
        let index = try TarArchive.index(of: path)
        let entries = index.mapValues { TarEntry(offset: $0.offset, size: $0.size) }
        return try RecordingBundle(location: path, storage: .archive(path: path, entries: entries))
    }

    private init(location: String, storage: Storage) throws(BundleError) {
        self.location = location
        self.storage = storage
        let manifestName = BundleWriter.manifestFile
        guard let manifestData = try Self.read(manifestName, from: storage) else {
            if case .directory(let url) = storage, FileManager.default.fileExists(atPath: url.path + ".partial") {
                throw BundleError(location, "is still being written (or its recording was interrupted): open \(url.path).partial instead")
            }
            throw BundleError(location, "is not a hlschaos bundle: it has no \(manifestName) (expected what `hlschaos record`, `--record` or `import-har` wrote)")
        }
        let manifestPath = Self.describe(manifestName, in: location)
        let manifest: BundleManifest
        do {
            manifest = try RecordTime.jsonDecoder().decode(BundleManifest.self, from: manifestData)
        } catch {
            throw BundleError(manifestPath, "is not a readable bundle manifest: \(JSONProblem.describe(error))")
        }
        guard manifest.format == BundleManifest.formatName else {
            throw BundleError(manifestPath, "\"format\" is \"\(manifest.format)\", not \"\(BundleManifest.formatName)\": this is not a hlschaos bundle")
        }
        guard manifest.version <= BundleManifest.currentVersion else {
            throw BundleError(manifestPath, "was written in bundle format version \(manifest.version); this hlschaos reads up to version \(BundleManifest.currentVersion) (upgrade hlschaos)")
        }
        self.manifest = manifest

        let linesName = BundleWriter.exchangesFile
        let linesPath = Self.describe(linesName, in: location)
        guard let linesData = try Self.read(linesName, from: storage) else {
            throw BundleError(linesPath, "is missing: a bundle keeps its requests and responses there")
        }
        exchanges = try Self.decodeLines(linesData, path: linesPath)
        try checkBodies(linesPath: linesPath)
    }

    /// The stored bytes of a body.
    public func body(_ reference: Exchange.BodyReference) throws(BundleError) -> [UInt8] {
        let name = BundleWriter.bodiesDirectory + "/" + reference.sha256
        guard let data = try Self.read(name, from: storage) else {
            throw BundleError(Self.describe(name, in: location), "is missing")
        }
        return [UInt8](data)
    }

    /// The exchange's body, or an empty one when it had none.
    public func body(of exchange: Exchange) throws(BundleError) -> [UInt8] {
        guard let reference = exchange.body else { return [] }
        return try body(reference)
    }

    /// Seconds from the first request to the last response (or the manifest's end).
    public var duration: Double {
        let last = exchanges.map(\.receivedAt).max() ?? 0
        guard let ended = manifest.ended else { return last }
        return max(last, ended.timeIntervalSince(manifest.started))
    }

    // MARK: - Reading

    private static func describe(_ name: String, in location: String) -> String {
        location.hasSuffix(".tar") ? "\(location) (\(name))" : URL(fileURLWithPath: location).appendingPathComponent(name).path
    }

    private static func read(_ name: String, from storage: Storage) throws(BundleError) -> Data? {
        switch storage {
        case .directory(let url):
            return FileManager.default.contents(atPath: url.appendingPathComponent(name).path)
        case .archive(let path, let entries):
            guard let entry = entries[name] else { return nil }
            guard let handle = FileHandle(forReadingAtPath: path) else { throw BundleError(path, "cannot be opened for reading") }
            defer { try? handle.close() }
            do {
                try handle.seek(toOffset: entry.offset)
                let data = try handle.read(upToCount: entry.size) ?? Data()
                guard data.count == entry.size else { throw BundleError(path, "is cut short inside \(name)") }
                return data
            } catch let error as BundleError {
                throw error
            } catch {
                throw BundleError(path, "could not read \(name): \(error.localizedDescription)")
            }
        }
    }

    private static func decodeLines(_ data: Data, path: String) throws(BundleError) -> [Exchange] {
        let decoder = RecordTime.jsonDecoder()
        var exchanges: [Exchange] = []
        let bytes = [UInt8](data)
        var lineNumber = 0
        var start = 0
        while start < bytes.count {
            lineNumber += 1
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            let line = bytes[start..<end]
            defer { start = end + 1 }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) { continue }
            do {
                exchanges.append(try decoder.decode(Exchange.self, from: Data(line)))
            } catch {
                if end == bytes.count {
                    throw BundleError(path, "line \(lineNumber) is cut short (the recording stopped in the middle of writing it): delete that line to use the \(exchanges.count) exchanges before it")
                }
                throw BundleError(path, "line \(lineNumber) is not a readable exchange: \(JSONProblem.describe(error))")
            }
        }
        return exchanges
    }

    private func checkBodies(linesPath: String) throws(BundleError) {
        var seen: [String: Int] = [:]
        for (index, exchange) in exchanges.enumerated() {
            guard let reference = exchange.body else { continue }
            let name = BundleWriter.bodiesDirectory + "/" + reference.sha256
            guard reference.sha256.count == 64, reference.sha256.allSatisfy(\.isHexDigit) else {
                throw BundleError(linesPath, "line \(index + 1): \"\(reference.sha256)\" is not a SHA-256 body name")
            }
            if let size = seen[reference.sha256] {
                guard size == reference.size else {
                    throw BundleError(linesPath, "line \(index + 1) gives body \(reference.sha256) a size of \(reference.size), an earlier line \(size)")
                }
                continue
            }
            let actual: Int?
            switch storage {
            case .directory(let url):
                let attributes = try? FileManager.default.attributesOfItem(atPath: url.appendingPathComponent(name).path)
                actual = (attributes?[.size] as? NSNumber)?.intValue
            case .archive(_, let entries):
                actual = entries[name]?.size
            }
            guard let actual else {
                throw BundleError(Self.describe(name, in: location), "is missing (the body of \(exchange.url), exchanges.jsonl line \(index + 1))")
            }
            guard actual == reference.size else {
                throw BundleError(Self.describe(name, in: location), "holds \(actual) bytes where exchanges.jsonl line \(index + 1) says \(reference.size): the bundle is damaged")
            }
            seen[reference.sha256] = actual
        }
    }
}

/// A decoding error in words: which field, and what was wrong.
public enum JSONProblem {
    public static func describe(_ error: Error) -> String {
        guard let error = error as? DecodingError else { return "not valid JSON" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "" : "\"\(keys.joined(separator: "."))\": "
        }
        switch error {
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : path(context) + context.debugDescription
        case .keyNotFound(let key, let context):
            return path(context) + "\"\(key.stringValue)\" is missing"
        case .typeMismatch(let type, let context):
            return path(context) + "expected \(type)"
        case .valueNotFound(let type, let context):
            return path(context) + "expected \(type), found null"
        @unknown default:
            return "not valid JSON"
        }
    }
}
