import Foundation
import BundleFormat
import Testing
import TestSupport

/// Bundles written and read back: bodies stored once, streaming capture, redaction, the archive,
/// the size cap, and a clear error for each way a bundle can be broken.
@Suite struct BundleTests {
    static let playlist = Array("""
        #EXTM3U
        #EXT-X-TARGETDURATION:4
        #EXT-X-MEDIA-SEQUENCE:7
        #EXTINF:4,
        seg7.ts?token=secret&_HLS_part=1
        #EXTINF:4,
        https://cdn.example/seg8.ts?sig=abc
        """.utf8) + [0x0A]

    @Test func sha256IsTheOneSha256sumPrints() {
        #expect(SHA256Hasher.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256Hasher.hex(of: [UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        // A body received in pieces (FIPS 180-2's two-block message, split mid-block) names the same file.
        let message = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        let hasher = SHA256Hasher()
        hasher.update(message[..<5])
        message[5...].withUnsafeBytes { hasher.update($0) }
        #expect(hasher.finish() == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test(arguments: [false, true])
    func aBundleReadsBackAsWrittenWithEachBodyStoredOnce(archive: Bool) throws {
        try withTemporaryFolder("bundle") { folder in
            let out = folder.url(archive ? "bundle.tar" : "bundle.d")
            let writer = try BundleWriter(destination: out, source: .record, entry: "http://o/master.m3u8", archive: archive)
            let segment = [UInt8](repeating: 0x47, count: 100_000)
            let first = try writer.storeBody(segment)
            let capture = writer.beginBody()
            for chunk in stride(from: 0, to: segment.count, by: 7_000) { capture.append(Array(segment[chunk..<min(chunk + 7_000, segment.count)])) }
            let second = try #require(try capture.finish())
            #expect(first == second, "the same bytes get the same name, streamed or not")
            try writer.append(Exchange(at: 0.5, url: "http://o/v0/seg1.ts", status: 200, headers: [.init("Content-Type", "video/mp2t")],
                                       body: first, timings: .init(connect: 0.001, firstByte: 0.01, total: 0.2), kind: "segment"))
            try writer.append(Exchange(at: 1.0, url: "http://o/v0/seg1.ts", status: 200, body: second))
            try writer.append(Exchange(at: 2.0, url: "http://o/v0/seg2.ts", status: nil, ending: .timeout, error: "no answer in 5 s",
                                       timings: .init(total: 5)))
            let manifest = try writer.finish()
            #expect(manifest.exchangeCount == 3 && manifest.bodyCount == 1 && manifest.bodyBytes == 100_000)
            #expect(FileManager.default.fileExists(atPath: out.path))
            if archive { #expect(!FileManager.default.fileExists(atPath: out.path + ".partial"), "the work directory is gone") }

            let bundle = try RecordingBundle.open(out.path)
            #expect(bundle.manifest.source == .record && bundle.manifest.entry == "http://o/master.m3u8" && bundle.manifest.ended != nil)
            #expect(bundle.exchanges.count == 3)
            #expect(bundle.exchanges[0].header("content-type") == "video/mp2t")
            #expect(bundle.exchanges[0].timings.firstByte == 0.01)
            #expect(bundle.exchanges[2].ending == .timeout && bundle.exchanges[2].status == nil)
            #expect(try bundle.body(of: bundle.exchanges[1]) == segment)
            #expect(bundle.duration >= 7.0)
        }
    }

    @Test func anArchiveUnpacksWithTar() throws {
        try withTemporaryFolder("bundle") { folder in
            let out = folder.url("bundle.tar")
            let writer = try BundleWriter(destination: out, source: .proxy, entry: nil, archive: true)
            let reference = try writer.storeBody(Array("hello".utf8))
            try writer.append(Exchange(at: 0, url: "http://o/a", status: 200, body: reference))
            try writer.finish()
            let target = folder.url("unpacked")
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            let tar = Process()
            tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            tar.arguments = ["tar", "-xf", out.path, "-C", target.path]
            try tar.run()
            tar.waitUntilExit()
            #expect(tar.terminationStatus == 0)
            let body = try String(contentsOfFile: target.appendingPathComponent("bodies/sha256/\(reference.sha256)").path, encoding: .utf8)
            #expect(body == "hello")
            #expect(try RecordingBundle.open(target.path).exchanges.count == 1, "an unpacked archive is a bundle directory")
        }
    }

    @Test func redactionDropsCredentialsAndQueryTokensBeforeWriting() throws {
        try withTemporaryFolder("bundle") { folder in
            let out = folder.url("bundle")
            let writer = try BundleWriter(destination: out, source: .record, entry: "https://u:p@cdn.example/live.m3u8?token=abc", redact: true)
            let capture = writer.beginBody()
            capture.append(Self.playlist)
            let reference = try #require(try capture.finish())
            try writer.append(Exchange(at: 0, url: "https://cdn.example/live.m3u8?token=abc&_HLS_msn=9", status: 200,
                                       headers: [.init("Set-Cookie", "s=1"), .init("Content-Type", "application/vnd.apple.mpegurl")],
                                       body: reference))
            try writer.finish()
            let bundle = try RecordingBundle.open(out.path)
            #expect(bundle.manifest.redacted && bundle.manifest.entry == "https://cdn.example/live.m3u8")
            #expect(bundle.exchanges[0].url == "https://cdn.example/live.m3u8?_HLS_msn=9")
            #expect(bundle.exchanges[0].headers.map(\.name) == ["Content-Type"])
            let text = String(decoding: try bundle.body(of: bundle.exchanges[0]), as: UTF8.self)
            #expect(text.contains("seg7.ts?_HLS_part=1\n") && text.contains("https://cdn.example/seg8.ts\n"), "\(text)")
            #expect(!text.contains("secret") && !text.contains("sig="))
            let everything = try FileManager.default.subpathsOfDirectory(atPath: out.path).compactMap {
                FileManager.default.contents(atPath: out.appendingPathComponent($0).path)
            }.map { String(decoding: $0, as: UTF8.self) }.joined()
            #expect(!everything.contains("secret") && !everything.contains("abc") && !everything.contains("s=1"), "nothing secret on disk")
        }
    }

    @Test func theSizeCapStopsTheRecordingWithAClearReason() throws {
        try withTemporaryFolder("bundle") { folder in
            let out = folder.url("bundle")
            let writer = try BundleWriter(destination: out, source: .record, entry: nil, sizeCap: 250_000)
            _ = try writer.storeBody([UInt8](repeating: 1, count: 200_000))
            #expect(throws: BundleError.self) { _ = try writer.storeBody([UInt8](repeating: 2, count: 100_000)) }
            #expect(writer.stopReason?.contains("size cap") == true)
            do {
                try writer.append(Exchange(at: 0, url: "http://o/a", status: 200))
                Issue.record("a stopped writer took an exchange")
            } catch {
                #expect((error as? BundleError)?.isSizeCap == true && "\(error)".contains("--max-size"))
            }
            try writer.finish()
            #expect(try RecordingBundle.open(out.path).manifest.stopReason?.contains("size cap") == true)
        }
    }

    @Test func aBundleIsNeverOverwritten() throws {
        try withTemporaryFolder("bundle") { folder in
            let out = folder.url("bundle")
            try BundleWriter(destination: out, source: .record, entry: nil).finish()
            #expect { try BundleWriter(destination: out, source: .record, entry: nil) } throws: {
                ($0 as? BundleError)?.description.contains("already exists") == true
            }
        }
    }

    // MARK: - Broken bundles

    static func sampleBundle(archive: Bool = false, in folder: TemporaryFolder) throws -> URL {
        let out = folder.url(archive ? "bundle.tar" : "bundle.d")
        let writer = try BundleWriter(destination: out, source: .record, entry: nil, archive: archive)
        for n in 0..<3 {
            let reference = try writer.storeBody([UInt8](repeating: UInt8(n), count: 5_000))
            try writer.append(Exchange(at: Double(n), url: "http://o/seg\(n).ts", status: 200, body: reference))
        }
        try writer.finish()
        return out
    }

    static func openError(_ path: String) -> String {
        do { _ = try RecordingBundle.open(path); return "opened" } catch { return error.description }
    }

    @Test func aTruncatedArchiveNamesWhereItEnds() throws {
        try withTemporaryFolder("bundle") { folder in
            let out = try Self.sampleBundle(archive: true, in: folder)
            let data = try Data(contentsOf: out)
            try data.prefix(data.count / 2).write(to: out)
            let message = Self.openError(out.path)
            #expect(message.hasPrefix(out.path) && message.contains("cut short") && message.contains("copy it again"), "\(message)")
        }
    }

    @Test func aCutLastLineAMissingBodyAndANewerFormatAreNamed() throws {
        try withTemporaryFolder("bundle") { folder in
            let out = try Self.sampleBundle(in: folder)
            let lines = out.appendingPathComponent("exchanges.jsonl")
            let text = try String(contentsOf: lines, encoding: .utf8)
            try String(text.dropLast(20)).write(to: lines, atomically: true, encoding: .utf8)
            var message = Self.openError(out.path)
            #expect(message.contains("exchanges.jsonl: line 3 is cut short") && message.contains("2 exchanges before it"), "\(message)")

            try text.write(to: lines, atomically: true, encoding: .utf8)
            let bodies = out.appendingPathComponent("bodies/sha256")
            let first = try #require(try FileManager.default.contentsOfDirectory(atPath: bodies.path).sorted().first)
            try FileManager.default.removeItem(at: bodies.appendingPathComponent(first))
            message = Self.openError(out.path)
            #expect(message.contains(first) && message.contains("is missing") && message.contains("http://o/seg"), "\(message)")

            let manifest = out.appendingPathComponent("bundle.json")
            let manifestText = try String(contentsOf: manifest, encoding: .utf8)
            try manifestText.replacingOccurrences(of: "\"version\" : 1", with: "\"version\" : 7").write(to: manifest, atomically: true, encoding: .utf8)
            message = Self.openError(out.path)
            #expect(message.contains("version 7") && message.contains("upgrade"), "\(message)")

            try "{\"format\": \"hlschaos-bundle\"}".write(to: manifest, atomically: true, encoding: .utf8)
            message = Self.openError(out.path)
            #expect(message.contains("bundle.json") && message.contains("is missing"), "\(message)")

            #expect(Self.openError("/nonexistent/b").contains("does not exist"))
            #expect(Self.openError(folder.path).contains("no bundle.json"))
        }
    }

    @Test func aFileThatIsNotAnArchiveIsSaidToBeOne() throws {
        try withTemporaryFolder("bundle") { folder in
            let path = folder.path("bundle.har")
            try String(repeating: "{\"log\": {}}\n", count: 100).write(toFile: path, atomically: true, encoding: .utf8)
            #expect(Self.openError(path).contains("is not a tar archive"))
        }
    }
}
