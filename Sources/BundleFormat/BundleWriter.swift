import Addressing
import Foundation
import Records

/// Writes a bundle to disk as it goes: each exchange is one line appended to `exchanges.jsonl`,
/// each distinct body one file under `bodies/sha256/`, so memory does not grow with the
/// recording's length. Safe to call from several threads (one lock; the work under it is a
/// file append or a rename).
///
/// With `archive`, the bundle is written into `<destination>.partial/` and packed into the one
/// `.tar` file at `finish`. With `redact`, `Redactor` runs over every URL, header list and
/// playlist body before it is written.
public final class BundleWriter: @unchecked Sendable {
    public static let manifestFile = "bundle.json"
    public static let exchangesFile = "exchanges.jsonl"
    public static let bodiesDirectory = "bodies/sha256"

    public let destination: URL
    public let started: Date
    public let redact: Bool
    /// Bytes of bodies and exchange lines after which the writer stops (nil: no cap).
    public let sizeCap: Int?
    private let directory: URL
    private let archive: Bool
    private let lock = NSLock()
    private var manifest: BundleManifest
    private let lines: FileHandle
    // Which bodies are stored is asked of the file system (`isStored`), not kept in a set: a set of
    // hashes would grow with the recording's length.
    private var bytesWritten = 0
    private var finished = false

    public init(
        destination: URL, source: BundleManifest.Source, entry: String?, redact: Bool = false,
        sizeCap: Int? = nil, archive: Bool = false, started: Date = Date(), tool: String = "hlschaos"
    ) throws(BundleError) {
        self.destination = destination
        self.started = started
        self.redact = redact
        self.sizeCap = sizeCap
        self.archive = archive
        self.directory = archive ? URL(fileURLWithPath: destination.path + ".partial") : destination
        let files = FileManager.default
        for existing in [destination, directory] where files.fileExists(atPath: existing.path) {
            let empty = (try? files.contentsOfDirectory(atPath: existing.path))?.isEmpty ?? false
            guard empty else {
                throw BundleError(existing.path, "already exists; choose a new path or remove it (a bundle is never overwritten)")
            }
        }
        do {
            try files.createDirectory(at: directory.appendingPathComponent(Self.bodiesDirectory), withIntermediateDirectories: true)
        } catch {
            throw BundleError(directory.path, "cannot be created: \(error.localizedDescription)")
        }
        let linesPath = directory.appendingPathComponent(Self.exchangesFile).path
        guard files.createFile(atPath: linesPath, contents: nil), let handle = FileHandle(forWritingAtPath: linesPath) else {
            throw BundleError(linesPath, "cannot be created (check the directory is writable)")
        }
        lines = handle
        manifest = BundleManifest(
            source: source, entry: entry.map { redact ? Redactor.url($0) : $0 }, started: started,
            redacted: redact, tool: tool)
        try writeManifest()
    }

    deinit { try? lines.close() }

    /// Why the writer stopped taking exchanges, once it has (the size cap).
    public var stopReason: String? { lock.withLock { manifest.stopReason } }

    /// Seconds since the recording started, for an exchange's `at`.
    public func offset(of date: Date) -> Double { date.timeIntervalSince(started) }

    /// Stores a body (once per distinct content) and returns its reference.
    public func storeBody(_ bytes: [UInt8]) throws(BundleError) -> Exchange.BodyReference {
        let content = redact ? Redactor.body(bytes) : bytes
        let hash = SHA256Hasher.hex(of: content)
        let reference = Exchange.BodyReference(sha256: hash, size: content.count)
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        if isStored(hash) { return reference }
        try reserve(content.count)
        let path = bodyPath(hash)
        guard FileManager.default.createFile(atPath: path, contents: Data(content)) else {
            throw BundleError(path, "cannot be written (disk full or not writable?)")
        }
        manifest.bodyCount += 1
        manifest.bodyBytes += content.count
        return reference
    }

    /// A body that arrives in pieces, written to a temporary file as it comes and named by its
    /// hash at the end. Playlists (when redacting) are kept in memory instead: they are rewritten.
    public func beginBody() -> BodyCapture { BodyCapture(writer: self) }

    /// Appends one exchange (redacted first when the bundle is).
    public func append(_ exchange: Exchange) throws(BundleError) {
        var exchange = exchange
        // Microseconds are more than any clock here resolves, and keep the lines short.
        func micro(_ value: Double?) -> Double? { value.map { ($0 * 1e6).rounded() / 1e6 } }
        exchange.at = micro(exchange.at) ?? 0
        exchange.timings = .init(
            connect: micro(exchange.timings.connect), firstByte: micro(exchange.timings.firstByte), total: micro(exchange.timings.total))
        if redact {
            exchange.url = Redactor.url(exchange.url)
            exchange.headers = Redactor.headers(exchange.headers)
        }
        guard var data = try? RecordTime.jsonEncoder().encode(exchange) else {
            throw BundleError(exchangesPathText, "an exchange for \(exchange.url) could not be encoded")
        }
        data.append(0x0A)
        lock.lock()
        defer { lock.unlock() }
        try checkOpen()
        try reserve(data.count)
        do { try lines.write(contentsOf: data) } catch {
            throw BundleError(exchangesPathText, "cannot be appended to: \(error.localizedDescription)")
        }
        manifest.exchangeCount += 1
    }

    /// Writes the final manifest (and packs the archive). Calling it twice is harmless.
    @discardableResult
    public func finish(stopReason: String? = nil, at end: Date = Date()) throws(BundleError) -> BundleManifest {
        lock.lock()
        defer { lock.unlock() }
        if finished { return manifest }
        finished = true
        manifest.ended = end
        if manifest.stopReason == nil { manifest.stopReason = stopReason }
        try? lines.synchronize()
        try? lines.close()
        try writeManifest()
        if archive {
            let bodies = (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(Self.bodiesDirectory).path)) ?? []
            let names = [Self.manifestFile, Self.exchangesFile]
                + bodies.filter { !$0.hasPrefix(Self.partialPrefix) }.sorted().map { Self.bodiesDirectory + "/" + $0 }
            try TarArchive.write(directory: directory, files: names, to: destination)
            try? FileManager.default.removeItem(at: directory)
        }
        return manifest
    }

    // MARK: - Under the lock

    private var exchangesPathText: String { directory.appendingPathComponent(Self.exchangesFile).path }

    fileprivate func bodyPath(_ hash: String) -> String {
        directory.appendingPathComponent(Self.bodiesDirectory).appendingPathComponent(hash).path
    }

    fileprivate static let partialPrefix = "partial-"

    fileprivate var temporaryBodyPath: String {
        directory.appendingPathComponent(Self.bodiesDirectory).appendingPathComponent(Self.partialPrefix + UUID().uuidString).path
    }

    private func isStored(_ hash: String) -> Bool {
        access(bodyPath(hash), F_OK) == 0
    }

    private func checkOpen() throws(BundleError) {
        if let reason = manifest.stopReason {
            throw BundleError(destination.path, reason, isSizeCap: true)
        }
        if finished { throw BundleError(destination.path, "the recording has already finished") }
    }

    private func reserve(_ count: Int) throws(BundleError) {
        if let cap = sizeCap, bytesWritten + count > cap {
            let reason = "size cap of \(ByteSize.text(cap)) reached; the recording stopped there (raise the cap with --max-size for `record`, --record-max-size or \"recordMaxBytes\" for the proxy)"
            manifest.stopReason = reason
            try? writeManifest()
            throw BundleError(destination.path, reason, isSizeCap: true)
        }
        bytesWritten += count
    }

    private func writeManifest() throws(BundleError) {
        let encoder = RecordTime.jsonEncoder(pretty: true)
        let path = directory.appendingPathComponent(Self.manifestFile).path
        guard let data = try? encoder.encode(manifest),
              (try? data.write(to: URL(fileURLWithPath: path), options: .atomic)) != nil else {
            throw BundleError(path, "cannot be written (disk full or not writable?)")
        }
    }

    /// Called by `BodyCapture.finish` with a complete temporary file.
    fileprivate func adopt(temporary path: String, hash: String, size: Int) throws(BundleError) -> Exchange.BodyReference {
        let reference = Exchange.BodyReference(sha256: hash, size: size)
        lock.lock()
        defer { lock.unlock() }
        do { try checkOpen() } catch { try? FileManager.default.removeItem(atPath: path); throw error }
        if isStored(hash) {
            try? FileManager.default.removeItem(atPath: path)
            return reference
        }
        do { try reserve(size) } catch { try? FileManager.default.removeItem(atPath: path); throw error }
        guard rename(path, bodyPath(hash)) == 0 else {
            let problem = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: path)
            throw BundleError(bodyPath(hash), "cannot be written: \(problem)")
        }
        manifest.bodyCount += 1
        manifest.bodyBytes += size
        return reference
    }
}

/// One body being received: `append` the pieces, then `finish` for its reference (or `discard`).
public final class BodyCapture {
    private let writer: BundleWriter
    private let hasher = SHA256Hasher()
    private var file: FileHandle?
    private var path: String?
    private var memory: [UInt8] = []
    private var decided = false
    private var keepInMemory = false
    public private(set) var size = 0
    private var failure: BundleError?

    fileprivate init(writer: BundleWriter) { self.writer = writer }

    deinit { discard() }

    public func append(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, !bytes.isEmpty else { return }
        size += bytes.count
        if !decided {
            memory.append(contentsOf: bytes)
            guard memory.count >= 8 else { return }
            decide()
            return
        }
        if keepInMemory { memory.append(contentsOf: bytes); return }
        hasher.update(bytes)
        do { try file?.write(contentsOf: Data(bytes)) } catch { fail(error) }
    }

    public func append(_ bytes: [UInt8]) { bytes.withUnsafeBytes { append($0) } }

    /// The stored body's reference (nil for an empty body).
    public func finish() throws(BundleError) -> Exchange.BodyReference? {
        if let failure { discard(); throw failure }
        if size == 0 { return nil }
        if !decided { decide() }
        if keepInMemory {
            defer { memory = [] }
            return try writer.storeBody(memory)
        }
        guard let path else { throw BundleError(writer.destination.path, "a body's temporary file was lost") }
        try? file?.close()
        file = nil
        self.path = nil
        return try writer.adopt(temporary: path, hash: hasher.finish(), size: size)
    }

    /// Drops what was received (a request that will not be kept).
    public func discard() {
        try? file?.close()
        file = nil
        if let path { try? FileManager.default.removeItem(atPath: path) }
        path = nil
        memory = []
    }

    private func decide() {
        decided = true
        keepInMemory = writer.redact && ResourceGuess.isPlaylist(body: memory)
        if keepInMemory { return }
        let temporary = writer.temporaryBodyPath
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporary) else {
            failure = BundleError(temporary, "cannot be created (disk full or not writable?)")
            return
        }
        file = handle
        path = temporary
        let head = memory
        memory = []
        head.withUnsafeBytes { bytes in
            hasher.update(bytes)
            do { try handle.write(contentsOf: Data(bytes)) } catch { fail(error) }
        }
    }

    private func fail(_ error: Error) {
        failure = BundleError(path ?? writer.destination.path, "could not be written: \(error.localizedDescription)")
    }
}
