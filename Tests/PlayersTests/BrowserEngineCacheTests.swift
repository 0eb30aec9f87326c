import Foundation
import Testing
import TestSupport
@testable import Players

@Suite struct BrowserEngineCacheTests {
    /// A small engine whose archive the test builds: a wheel-like zip or an sdist-like tar.gz
    /// holding the engine file among others.
    private func fakeEngine(_ archive: BrowserEngine.Archive, content: [UInt8]) throws -> BrowserEngine {
        BrowserEngine(
            id: "fake", isModule: false, package: "fake-engine", version: "1.0", archive: archive,
            archiveFile: archive == .wheel ? "fake_engine-1.0-py3-none-any.whl" : "fake-engine-1.0.tar.gz",
            member: #"(^|/)assets/engine-[^/]*\.js$"#, cachedFile: "fake-engine.js",
            size: content.count, sha256: try sha256(content), label: "fake 1.0")
    }

    private func sha256(_ bytes: [UInt8]) throws -> String {
        // python3 is needed by the cache anyway; no hashing library in Foundation on Linux.
        try withTemporaryFolder("hash") { folder in
            let file = try folder.file("bytes", bytes)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", "import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],'rb').read()).hexdigest())", file]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            process.waitUntilExit()
            return String(decoding: pipe.fileHandleForReading.readAllRetryingInterrupts(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Writes `members` (name → bytes) into a zip or tar.gz at `path` with Python.
    private func makeArchive(_ archive: BrowserEngine.Archive, at path: URL, members: [String: [UInt8]]) async throws {
        try await withTemporaryFolder("cache") { folder in
            let source = folder.url
            for (name, bytes) in members {
                let file = source.appendingPathComponent(name)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(bytes).write(to: file)
            }
            let script = archive == .wheel
                ? "import sys,zipfile,os\nz=zipfile.ZipFile(sys.argv[1],'w')\nfor n in sys.argv[3:]: z.write(os.path.join(sys.argv[2],n),n)\nz.close()"
                : "import sys,tarfile,os\nt=tarfile.open(sys.argv[1],'w:gz')\nfor n in sys.argv[3:]: t.add(os.path.join(sys.argv[2],n),n)\nt.close()"
            let result = try await ProcessRunner.run(.init("python3", ["-c", script, path.path, source.path] + members.keys.sorted(), timeout: 30))
            #expect(result.status == 0, "\(result.stderr)")
        }
    }

    @Test func defaultDirectoryFollowsTheEnvironment() {
        #expect(BrowserEngineCache.defaultDirectory(environment: ["HLSCHAOS_CACHE": "/c", "XDG_CACHE_HOME": "/x", "HOME": "/h"]).path == "/c/players")
        #expect(BrowserEngineCache.defaultDirectory(environment: ["XDG_CACHE_HOME": "/x", "HOME": "/h"]).path == "/x/hlschaos/players")
        #expect(BrowserEngineCache.defaultDirectory(environment: ["HOME": "/h"]).path == "/h/.cache/hlschaos/players")
    }

    @Test func pipCommandsNameThePackage() {
        #expect(BrowserEngine.hlsjs.pipCommand(into: "/d") == "python3 -m pip download --no-deps gradio==6.31.0 -d /d")
        #expect(BrowserEngine.vhs.pipCommand(into: "/d") == "python3 -m pip download --no-deps --no-binary ':all:' js-videojs==7.5.5 -d /d")
    }

    /// A cached file of the right size is used as it is: no pip, no Python (`false` would fail).
    @Test func aCachedEngineIsReusedWithoutRunningAnything() async throws {
        try await withTemporaryFolder("cache") { folder in
            let directory = folder.url
            let engine = try fakeEngine(.wheel, content: Array("export const t = 1;\n".utf8))
            try Data(Array("export const t = 1;\n".utf8)).write(to: directory.appendingPathComponent(engine.cachedFile))
            let url = try await BrowserEngineCache(directory: directory, python: "false").ensure(engine)
            #expect(url.lastPathComponent == engine.cachedFile)
        }
    }

    /// pip failing names the engine, the command that failed and gives the pip command to run.
    @Test func aFailedDownloadNamesThePackageAndTheCommand() async throws {
        try await withTemporaryFolder("cache") { folder in
            let directory = folder.url
            // A truncated file of the wrong size does not count as cached.
            try Data("partial".utf8).write(to: directory.appendingPathComponent(BrowserEngine.hlsjs.cachedFile))
            let cache = BrowserEngineCache(directory: directory, python: "false")
            do {
                _ = try await cache.ensure(.hlsjs)
                Issue.record("the fetch should have failed")
            } catch let error as BrowserEngineCache.FetchError {
                #expect(error.description.hasPrefix("hls.js 1.6.15 (gradio 6.31.0): "), "\(error)")
                #expect(error.description.contains("false -m pip download --no-deps --disable-pip-version-check -q gradio==6.31.0 -d \(cache.downloads.path)` exited with status 1"), "\(error)")
                #expect(error.install == "python3 -m pip download --no-deps gradio==6.31.0 -d \(cache.downloads.path)")
            }
        }
    }

    /// An archive already in downloads/ (put there by hand) is extracted without pip, checked,
    /// renamed into place and deleted; both archive kinds.
    @Test(arguments: [BrowserEngine.Archive.wheel, .sdist])
    func anArchiveInDownloadsIsExtractedAndVerified(kind: BrowserEngine.Archive) async throws {
        try await withTemporaryFolder("cache") { folder in
            let directory = folder.url
            let content = Array("/* engine \(kind) */ var videojs = {};\n".utf8)
            let engine = try fakeEngine(kind, content: content)
            let cache = BrowserEngineCache(directory: directory)
            try FileManager.default.createDirectory(at: cache.downloads, withIntermediateDirectories: true)
            let archive = cache.downloads.appendingPathComponent(engine.archiveFile)
            try await makeArchive(kind, at: archive, members: [
                "pkg/assets/engine-AbC.js": content, "pkg/assets/other.js": Array("x".utf8), "pkg/README": Array("r".utf8),
            ])
            let url = try await cache.ensure(engine)
            #expect(try Data(contentsOf: url) == Data(content))
            #expect(!FileManager.default.fileExists(atPath: archive.path), "the archive is deleted after extraction")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tmp") }
            #expect(leftovers.isEmpty)
        }
    }

    /// A member whose hash differs is refused, and nothing lands in the cache.
    @Test func aWrongFileIsRefused() async throws {
        try await withTemporaryFolder("cache") { folder in
            let directory = folder.url
            var engine = try fakeEngine(.wheel, content: Array("expected".utf8))
            engine.sha256 = String(repeating: "0", count: 64)
            let cache = BrowserEngineCache(directory: directory)
            try FileManager.default.createDirectory(at: cache.downloads, withIntermediateDirectories: true)
            try await makeArchive(.wheel, at: cache.downloads.appendingPathComponent(engine.archiveFile),
                                  members: ["pkg/assets/engine-1.js": Array("expected".utf8)])
            await #expect(throws: BrowserEngineCache.FetchError.self) { _ = try await cache.ensure(engine) }
            #expect(!FileManager.default.fileExists(atPath: cache.path(of: engine).path))
            do {
                _ = try await cache.ensure(engine)
            } catch let error as BrowserEngineCache.FetchError {
                #expect(error.description.contains("expected 8 bytes, sha256 0000"), "\(error)")
            }
        }
    }
}
