import Foundation
import Testing
import TestSupport

/// The binary on its own, as installed: copied away from the checkout (`cp .build/release/hlschaos
/// /usr/local/bin`) and started elsewhere, it still has every preset of rules/.
@Suite struct CopiedBinaryTests {
    @Test func aCopiedBinaryStartedElsewhereServesTheBuiltInPresets() async throws {
        try await withTemporaryFolder("copied") { home in
            let fileManager = FileManager.default
            let bin = home.url("bin"), work = home.url("work")
            try fileManager.createDirectory(at: bin, withIntermediateDirectories: true)
            try fileManager.createDirectory(at: work, withIntermediateDirectories: true)
            let binary = bin.appendingPathComponent("hlschaos")
            try fileManager.copyItem(atPath: CLI.binary, toPath: binary.path)
            let presetCount = try fileManager.contentsOfDirectory(atPath: CLI.repository.appendingPathComponent("rules").path)
                .filter { $0.hasSuffix(".json") && $0 != "schema.json" }.count

            try await TestOrigin.with { origin in
                origin.routeDirectory("/ts/", directory: CLI.repository.appendingPathComponent("Sources/DemoOrigin/Media/ts").path)
                let proxy = CLI.Running(["serve", "--upstream", origin.baseURL, "--host", "127.0.0.1", "--port", "0"])
                proxy.process.executableURL = binary
                proxy.process.currentDirectoryURL = work
                try proxy.start()
                defer { if proxy.process.isRunning { proxy.process.terminate() } }
                #expect(await proxy.waitForOutput(containing: "hlschaos listening"))
                let port = try #require(await proxy.port(after: "hlschaos listening on 127.0.0.1:"))
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
            }
        }
    }

    /// Installed alone on a machine that never had its build: the build folder and the checkout's
    /// media are hidden (tmpfs mounts in a mount namespace of its own), so nothing but the copied
    /// binary is there. The dashboard, compiled in, is served; `demo` says what it is missing and
    /// exits; with the resource folder copied beside the binary, `demo` serves its media.
    /// (Before, one request for the dashboard ended the process: SwiftPM's `Bundle.module` calls
    /// `fatalError` when its bundle is not found; `demo` crashed the same way.)
    @Test(.enabled(if: Isolated.available, "needs root and unshare(1) for a private mount namespace"))
    func aBinaryInstalledAloneServesItsDashboardAndSaysWhatTheDemoNeeds() async throws {
        try await withTemporaryFolder("copied") { home in
            let fileManager = FileManager.default
            let bin = home.url("bin")
            try fileManager.createDirectory(at: bin, withIntermediateDirectories: true)
            let binary = bin.appendingPathComponent("hlschaos")
            try fileManager.copyItem(atPath: CLI.binary, toPath: binary.path)
            let buildFolder = URL(fileURLWithPath: CLI.binary).resolvingSymlinksInPath().deletingLastPathComponent()
            let hidden = [buildFolder.path, CLI.repository.appendingPathComponent("Sources/DemoOrigin/Media").path]

            let serve = Isolated.running(binary: binary.path, hiding: hidden, [
                "serve", "--upstream", "http://127.0.0.1:9", "--host", "127.0.0.1", "--port", "0", "--control", "127.0.0.1:0",
            ])
            try serve.start()
            defer { if serve.process.isRunning { serve.process.terminate() } }
            #expect(await serve.waitForOutput(containing: "control API on"))
            let control = try #require(await serve.port(after: "control API on http://127.0.0.1:"), "\(serve.stderr)")
            let page = try await RawHTTP.get(port: control, "/")
            #expect(page.status == 200 && page.text.contains("<html"), "\(page.status) \(page.text.prefix(200))")
            for file in ["/dashboard.js", "/api.js", "/qr.js", "/dashboard.css", "/favicon.svg"] {
                #expect(try await RawHTTP.get(port: control, file).status == 200, "\(file)")
            }
            #expect(serve.process.isRunning, "\(serve.stderr)")
            serve.signal(SIGINT)
            #expect(await serve.wait(timeout: 10).status == 0)

            let demo = Isolated.running(binary: binary.path, hiding: hidden, ["demo", "--host", "127.0.0.1", "--port", "0", "--control", "off"])
            try demo.start()
            let refused = await demo.wait(timeout: 20)
            #expect(demo.process.terminationReason == .exit && refused.status == 1, "\(refused.status) \(refused.stderr)")
            #expect(refused.stderr.contains("the demo origin's media are not installed"), "\(refused.stderr)")
            #expect(refused.stderr.contains("copy the folder hlschaos_DemoOrigin.resources"), "\(refused.stderr)")

            try fileManager.copyItem(
                at: buildFolder.appendingPathComponent("hlschaos_DemoOrigin.resources"),
                to: bin.appendingPathComponent("hlschaos_DemoOrigin.resources"))
            let installed = Isolated.running(binary: binary.path, hiding: hidden, ["demo", "--host", "127.0.0.1", "--port", "0", "--control", "off"])
            try installed.start()
            defer { if installed.process.isRunning { installed.process.terminate() } }
            #expect(await installed.waitForOutput(containing: "proxy on port"), "\(installed.stderr)")
            let port = try #require(await installed.port(after: "proxy on port "), "\(installed.stdout)")
            let master = try await RawHTTP.get(port: port, "/vod/ts/master.m3u8")
            #expect(master.status == 200 && master.text.hasPrefix("#EXTM3U"), "\(master.status) \(master.text.prefix(200))")
            installed.signal(SIGINT)
            #expect(await installed.wait(timeout: 10).status == 0)
        }
    }
}

/// A copied binary run in a mount namespace of its own in which some folders are hidden by empty
/// tmpfs mounts (the namespace's mounts are private: nothing outside it changes).
enum Isolated {
    static let available: Bool = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")

    /// Started in the folder above the binary's (the test's own), away from the checkout.
    static func running(binary: String, hiding folders: [String], _ arguments: [String]) -> CLI.Running {
        let running = CLI.Running([])
        running.process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        let mounts = folders.indices.map { "mount -t tmpfs none \"$\($0 + 2)\" && " }.joined()
        let script = mounts + "bin=$1; shift \(folders.count + 1); exec \"$bin\" \"$@\""
        running.process.arguments = ["--mount", "sh", "-c", script, "sh", binary] + folders + arguments
        running.process.currentDirectoryURL = URL(fileURLWithPath: binary).deletingLastPathComponent().deletingLastPathComponent()
        return running
    }
}
