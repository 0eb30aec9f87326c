import Foundation
import Testing
import TestSupport

/// `serve --config`: the keys of every owner reach it, not only the data plane's.
@Suite struct ConfigHandOffTests {
    @Test func eachPartOfTheConfigFileReachesItsOwner() async throws {
        try await withTemporaryFolder("handoff") { scratch in
            try await TestOrigin.with { origin in
                origin.route("/a.ts", .bytes(body: Array("segment".utf8)))
                let folder = scratch.path
                let rules = folder + "/every-session.json"
                try #"{"name": "from-config", "rules": [{"id": "s", "match": {"kind": "segment"}, "action": {"status": 503}}]}"#
                    .write(toFile: rules, atomically: true, encoding: .utf8)
                let config = folder + "/config.json"
                try """
                    {"upstream": "\(origin.baseURL)", "listen": "127.0.0.1:0", "rules": ["\(rules)"], "logLevel": "debug",
                     "control": "127.0.0.1:0", "controlToken": "handoff-token", "dataDir": "\(folder)/data", "forward": {"enabled": true}}
                    """.write(toFile: config, atomically: true, encoding: .utf8)
                let proxy = CLI.Running(["serve", "--config", config])
                try proxy.start()
                let port = try #require(await proxy.port(after: "hlschaos listening on 127.0.0.1:"), "\(proxy.stderr)")
                let controlPort = try #require(await proxy.port(after: "control API on http://127.0.0.1:"), "\(proxy.stderr)")

                // The rules: the file's scenario applies to every session.
                #expect(try await RawHTTP.get(port: port, "/a.ts").status == 503)
                // The log level: debug logs one line per request.
                #expect(await proxy.waitForOutput(containing: "debug hlschaos"), "\(proxy.stderr)")
                // The control API: on the file's address, with the file's token.
                #expect(try await RawHTTP.get(port: controlPort, "/api/rules").status == 401)
                let listed = try await RawHTTP.get(port: controlPort, "/api/rules", headers: [("Authorization", "Bearer handoff-token")])
                #expect(listed.status == 200 && listed.text.contains("from-config"), "\(listed.text)")
                // The data folder: forward mode's CA was made there.
                #expect(FileManager.default.fileExists(atPath: folder + "/data/ca/root.pem"))

                proxy.signal(SIGTERM)
                #expect(await proxy.wait(timeout: 10).status == 0)
            }
        }
    }
}
