import Foundation
import Testing
import TestSupport

/// The binary on its own, as installed: copied away from the checkout (`cp .build/release/hlschaos
/// /usr/local/bin`) and started elsewhere, it still has every preset of rules/.
@Suite struct CopiedBinaryTests {
    @Test func aCopiedBinaryStartedElsewhereServesTheBuiltInPresets() async throws {
        let fileManager = FileManager.default
        let home = fileManager.temporaryDirectory.appendingPathComponent("hlschaos-copied-\(UUID().uuidString)")
        let bin = home.appendingPathComponent("bin"), work = home.appendingPathComponent("work")
        try fileManager.createDirectory(at: bin, withIntermediateDirectories: true)
        try fileManager.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? fileManager.removeItem(at: home) }
        let binary = bin.appendingPathComponent("hlschaos")
        try fileManager.copyItem(atPath: CLI.binary, toPath: binary.path)
        let presetCount = try fileManager.contentsOfDirectory(atPath: CLI.repository.appendingPathComponent("rules").path)
            .filter { $0.hasSuffix(".json") && $0 != "schema.json" }.count

        let origin = try await TestOrigin.start()
        origin.routeDirectory("/ts/", directory: CLI.repository.appendingPathComponent("Sources/DemoOrigin/Media/ts").path)
        let proxy = CLI.Running(["serve", "--upstream", origin.baseURL, "--host", "127.0.0.1", "--port", "0"])
        proxy.process.executableURL = binary
        proxy.process.currentDirectoryURL = work
        try proxy.start()
        defer { if proxy.process.isRunning { proxy.process.terminate() } }
        #expect(await proxy.waitForOutput(containing: "hlschaos listening"))
        let port = try #require(proxy.port(after: "hlschaos listening on 127.0.0.1:"))
        #expect((proxy.stdout + proxy.stderr).contains("\(presetCount) presets: \(presetCount) built in"))

        let master = try await RawHTTP.get(port: port, "/s/tv1+status-503/ts/master.m3u8")
        #expect(master.status == 200, "\(master.text)")
        let top = try #require(master.text.split(separator: "\n").first { !$0.hasPrefix("#") && $0.contains("~media.v2/") })
        let media = try await RawHTTP.get(port: port, String(top))
        let segments = media.text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        let ninth = try #require(segments.first { $0.contains("~seg.v2.n9/") })
        let failed = try await RawHTTP.get(port: port, String(ninth))
        #expect(failed.status == 503, "\(failed.text)")
        #expect(failed.header("Retry-After") == "2")
        #expect(failed.header("X-HLSChaos-Fault")?.contains("status-503") == true)
        let first = try #require(segments.first { $0.contains("~seg.v2.n0/") })
        #expect(try await RawHTTP.get(port: port, String(first)).status == 200)

        proxy.signal(SIGINT)
        #expect(await proxy.wait(timeout: 10).status == 0)
        try await origin.shutdown()
    }
}
