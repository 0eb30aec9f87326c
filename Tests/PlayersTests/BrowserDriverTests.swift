import DemoOrigin
import Foundation
import PlayerReports
import Testing
import TestSupport
@testable import Players

/// Without Chromium, chromedriver and python3 the browser tests do not run (selenium and the
/// engines are then checked by `availability()`, a failure in the test).
private let browserToolsPresent = ["chromium", "chromedriver", "python3"].allSatisfy { ProcessRunner.which($0) != nil }

/// hls.js and video.js/VHS in headless Chromium against real HLS: the demo origin (which sends
/// `Access-Control-Allow-Origin: *`, needed as the page is on another origin) and a `TestOrigin`
/// whose segments all answer 404. One browser at a time: the machine has two cores.
@Suite(.serialized, .enabled(if: browserToolsPresent))
struct BrowserDriverTests {
    static let drivers = BrowserDriver.all

    /// Ready (the engine is fetched into the cache on first use), or the reason recorded.
    private func ready(_ driver: BrowserDriver) async -> Bool {
        switch await driver.availability() {
        case .ready: return true
        case let .missing(reason, install):
            Issue.record("\(driver.name) is not available: \(reason) (install: \(install))")
            return false
        }
    }

    private func play(_ driver: BrowserDriver, _ url: String, timeout: Double, live: Bool = false) async throws -> PlayerReport {
        let folder = try TemporaryFolder(driver.name)
        let directory = folder.url
        let report = await driver.play(PlayRequest(url: url, timeout: timeout, live: live, workDirectory: directory))
        let result = directory.appendingPathComponent("\(driver.name)-result.json")
        #expect(FileManager.default.fileExists(atPath: result.path), "the harness's JSON is kept in the work directory")
        // BROWSER_TESTS_KEEP=1 keeps the work directories (page, config, the harness's JSON).
        if ProcessInfo.processInfo.environment["BROWSER_TESTS_KEEP"] == nil {
            folder.remove()
        } else {
            print("\(driver.name) \(url): \(directory.path)")
        }
        return report
    }

    private func describe(_ report: PlayerReport) -> String {
        "\(report.outcomeText), position \(report.position ?? -1), \(report.seconds) s\n\(report.log)"
    }

    @Test(.timeLimit(.minutes(2)), arguments: drivers)
    func playsTheDemoVODToTheEnd(driver: BrowserDriver) async throws {
        guard await ready(driver) else { return }
        try await withStarted({ try await DemoOriginServer.start(origin: try DemoOrigin()) }, stop: { try? await $0.shutdown() }) { server in
            let report = try await play(driver, server.baseURL + "/vod/ts/master.m3u8", timeout: 40)
            try await server.shutdown()
            #expect(report.outcome == .played, "\(describe(report))")
            #expect(abs((report.position ?? 0) - 24) < 1, "12 × 2 s: \(describe(report))")
            #expect(report.errors.filter(\.fatal).isEmpty)
            #expect(!report.switches.isEmpty, "the starting variant is reported as a switch")
            #expect(report.switches.allSatisfy { (0..<3).contains($0.level) })
            #expect(report.version?.hasPrefix(driver.engine.label + ", Chromium ") == true, "\(report.version ?? "nil")")
            #expect(report.log.contains("fragLoaded"))
        }
    }

    /// Every segment answers 404 (with CORS, so the browser lets the player see the status).
    /// hls.js gives up (fatal fragLoadError); VHS 1.9.3 excludes the variants and then retries the
    /// last one forever: stalled at 0 when the limit comes. Neither is `played`.
    @Test(.timeLimit(.minutes(2)), arguments: drivers)
    func segmentsAnswering404AreNotPlayed(driver: BrowserDriver) async throws {
        guard await ready(driver) else { return }
        try await TestOrigin.with { origin in
            try serveDemoWithMissingSegments(on: origin)
            let report = try await play(driver, origin.baseURL + "/vod/ts/master.m3u8", timeout: 15)
            try await origin.shutdown()
            #expect(report.outcome != .played, "\(describe(report))")
            #expect(report.errors.contains { $0.code == 404 }, "\(describe(report))")
            if driver.name == "hlsjs" {
                #expect(report.outcome == .failed, "\(describe(report))")
                #expect(report.reason?.hasPrefix("hls.js fatal networkError fragLoadError (HTTP 404) sn ") == true, "\(describe(report))")
            } else {
                #expect(report.outcome == .stalled || report.outcome == .failed, "\(describe(report))")
                #expect(report.errors.contains { $0.kind == "segmentError" && $0.code == 404 }, "\(describe(report))")
            }
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: drivers)
    func aMissingMasterPlaylistFails(driver: BrowserDriver) async throws {
        guard await ready(driver) else { return }
        try await TestOrigin.with { origin in
            origin.route("/gone/master.m3u8", .bytes(status: 404, headers: cors + [("Content-Type", "text/plain")], body: Array("gone\n".utf8)))
            let report = try await play(driver, origin.baseURL + "/gone/master.m3u8", timeout: 20)
            try await origin.shutdown()
            #expect(report.outcome == .failed, "\(describe(report))")
            // video.js says MEDIA_ERR_NETWORK (VHS's error) or MEDIA_ERR_SRC_NOT_SUPPORTED (the element's,
            // when the MediaSource was already open), whichever comes first; the 404 is in the reason.
            let expected = driver.name == "hlsjs" ? "hls.js fatal networkError manifestLoadError (HTTP 404)" : "video.js fatal MEDIA_ERR_"
            #expect(report.reason?.hasPrefix(expected) == true, "\(describe(report))")
            #expect(report.reason?.contains("HTTP 404") == true, "\(describe(report))")
        }
    }

    /// Live: played at 1× for the whole limit, the position advancing.
    @Test(.timeLimit(.minutes(2)), arguments: drivers)
    func playsTheDemoLiveStreamForTheTimeLimit(driver: BrowserDriver) async throws {
        guard await ready(driver) else { return }
        try await withStarted({ try await DemoOriginServer.start(origin: try DemoOrigin()) }, stop: { try? await $0.shutdown() }) { server in
            let report = try await play(driver, server.baseURL + "/live/ts/master.m3u8", timeout: 10, live: true)
            try await server.shutdown()
            #expect(report.outcome == .played, "\(describe(report))")
            #expect(report.errors.filter(\.fatal).isEmpty, "\(describe(report))")
            #expect(report.log.contains("fragLoaded"))
        }
    }

    // MARK: a stream whose segments are gone

    private let cors: [(String, String)] = [("Access-Control-Allow-Origin", "*")]

    /// The demo's `/vod/ts/` playlists, each segment they list answering 404.
    private func serveDemoWithMissingSegments(on origin: TestOrigin) throws {
        let demo = try DemoOrigin()
        func fetch(_ path: String) throws -> String {
            let answer = demo.respond(method: "GET", path: path, headers: [])
            try #require(answer.status == 200, "\(path): \(answer.status)")
            return String(decoding: answer.body, as: UTF8.self)
        }
        func serve(_ path: String, _ text: String) {
            origin.route(path, .bytes(headers: cors + [("Content-Type", "application/vnd.apple.mpegurl")], body: Array(text.utf8)))
        }
        func resolve(_ uri: String, against path: String) -> String {
            uri.hasPrefix("/") ? uri : String(path[...(path.lastIndex(of: "/") ?? path.startIndex)]) + uri
        }
        let masterPath = "/vod/ts/master.m3u8"
        let master = try fetch(masterPath)
        serve(masterPath, master)
        var playlists: [String] = []
        for line in master.split(separator: "\n") {
            if line.hasPrefix("#EXT-X-I-FRAME") { continue }
            if !line.hasPrefix("#") {
                playlists.append(String(line))
            } else if let start = line.range(of: "URI=\"") {
                playlists.append(String(line[start.upperBound...].prefix { $0 != "\"" }))
            }
        }
        for uri in playlists {
            let path = resolve(uri, against: masterPath)
            let media = try fetch(path)
            serve(path, media)
            for line in media.split(separator: "\n") where !line.hasPrefix("#") && !line.isEmpty {
                origin.route(resolve(String(line), against: path),
                             .bytes(status: 404, headers: cors + [("Content-Type", "text/plain")], body: Array("gone\n".utf8)))
            }
        }
        #expect(playlists.count == 6, "3 variants, 2 audio renditions, 1 subtitle track: \(playlists)")
    }
}

extension BrowserDriver: CustomTestStringConvertible {
    public var testDescription: String { name }
}
