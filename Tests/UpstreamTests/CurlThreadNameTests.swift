import Foundation
import Testing
import TestSupport
@testable import Upstream

/// The curl thread says what it is in `top -H` and /proc (otherwise it carries the name of the
/// concurrency-pool thread that started it, and its CPU reads as the pool's).
@Suite struct CurlThreadNameTests {
    @Test func aRunningClientHasAThreadNamedHlschaosCurl() async throws {
        // By thread id: other tests start and stop clients of their own meanwhile.
        func curlThreads() throws -> Set<String> {
            Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").filter { task in
                (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) == "hlschaos-curl"
            })
        }
        let before = try curlThreads()
        let client = try UpstreamClient()
        let named = try await eventually { try !curlThreads().subtracting(before).isEmpty }
        await client.shutdown()
        #expect(named, "a new thread named hlschaos-curl while the client runs")
    }
}
