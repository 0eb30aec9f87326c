import Foundation
import Testing
import TestSupport

/// docs/scale-out.md end to end: two `hlschaos serve` in front of one origin, nginx in front of
/// them with the configuration the document gives (read out of it), one scenario pushed to both
/// control APIs, 50 sessions played through nginx.
@Suite struct ScaleOutTests {
    static let sessions = (1...50).map { String(format: "device-%02d", $0) }

    /// Segment faults drawn by `probability`: which segments a session loses depends on the
    /// session's name, so two sessions differ, and a session on another instance would differ
    /// too if the draw depended on anything but the session and the resource.
    static let scenario = """
        {"name": "scale-out",
         "description": "a share of segments lost (404) or cut before the head (reset), drawn per session",
         "rules": [
           {"id": "lost", "match": {"kind": "segment", "probability": 0.2, "seed": 23}, "action": {"status": 404}},
           {"id": "cut", "match": {"kind": "segment", "probability": 0.1, "seed": 7}, "action": {"reset": "before-headers"}}
         ]}
        """

    @Test func everySessionStaysOnOneInstanceAndGetsTheSameFaultsOnEither() async throws {
        try await withTemporaryFolder("scale-out") { folder in
            try #require(NginxProcess.executable != nil, "\(NginxProcess.missing)")
            try await TestOrigin.with { origin in
                origin.routeDirectory("/vod/", directory: CLI.repository.appendingPathComponent("Sources/DemoOrigin/Media/ts").path)

                let first = try await FleetInstance.start(upstream: origin.baseURL)
                defer { first.stop() }
                let second = try await FleetInstance.start(upstream: origin.baseURL)
                defer { second.stop() }
                let instances = [first, second]

                let nginx = try await NginxProcess.start { port in
                    try ScaleOutDocument.nginxConfiguration(listen: port, servers: instances.map(\.proxyPort))
                }
                defer { nginx.stop() }

                let scenarioFile = try folder.file("scenario.json", Self.scenario)
                for instance in instances {
                    let answer = try await instance.putRulesForEverySession(file: scenarioFile)
                    #expect(answer.status == 200 && answer.body.contains(#""scenario":"scale-out""#), "\(answer)")
                }

                let throughNginx = try await Self.playEverySession(port: nginx.port)
                let segmentCount = try #require(throughNginx.first?.segments.count)
                let requestsPerSession = SessionPlay.requestCount(segments: segmentCount)

                // Every session on exactly one instance, with all of its requests; both instances used.
                var counts: [[String: Int]] = []
                _ = await eventually {
                    counts = []
                    for instance in instances { counts.append((try? await instance.requestCountsBySession()) ?? [:]) }
                    return counts.flatMap(\.values).reduce(0, +) >= Self.sessions.count * requestsPerSession
                }
                var owner: [String: Int] = [:]
                for (index, sessions) in counts.enumerated() {
                    for (session, requests) in sessions {
                        #expect(owner[session] == nil, "\(session) has requests on both instances")
                        owner[session] = index
                        #expect(requests == requestsPerSession, "\(session): \(requests) requests on instance \(index + 1), \(requestsPerSession) made")
                    }
                }
                #expect(Set(owner.keys) == Set(Self.sessions), "sessions on no instance: \(Set(Self.sessions).subtracting(owner.keys).sorted())")
                #expect(Set(owner.values) == [0, 1], "one instance served every session: \(owner)")

                // What the serving instance did to each segment, and what the client got through nginx,
                // where a reset before the response head becomes nginx's 502.
                var served: [String: [Int: String]] = [:]
                for play in throughNginx {
                    let instance = instances[try #require(owner[play.session])]
                    let answers = try await Self.segmentAnswers(instance, session: play.session, count: segmentCount)
                    served[play.session] = answers
                    let expected = answers.mapValues { $0 == "reset" ? SessionPlay.Outcome.status(502) : .status(Int($0) ?? -1) }
                    #expect(Self.line(play.segments) == Self.line(expected), "\(play.session) through nginx")
                }

                // The same session played again, directly on the instance that did not serve it.
                for play in throughNginx {
                    let other = instances[1 - (owner[play.session] ?? 0)]
                    let direct = try await SessionPlay.play(session: play.session, entry: "vod/master.m3u8", port: other.proxyPort)
                    let answers = try await Self.segmentAnswers(other, session: play.session, count: segmentCount)
                    #expect(Self.line(answers) == Self.line(served[play.session] ?? [:]), "\(play.session) on the other instance")
                    let expected = answers.mapValues { $0 == "reset" ? SessionPlay.Outcome.noResponse : .status(Int($0) ?? -1) }
                    #expect(Self.line(direct.segments) == Self.line(expected), "\(play.session) played directly")
                }

                // The rules really drew: both faults happened, and sessions lost different segments.
                let answers = served.values.flatMap(\.values)
                #expect(answers.contains("404") && answers.contains("reset"), "\(answers.count) segments, none faulted both ways")
                let lostSegments = Set(served.values.map { $0.filter { $0.value != "200" }.keys.sorted() })
                #expect(lostSegments.count > 1, "every session lost the same segments: \(lostSegments)")
            }
        }
    }

    /// Every session of `sessions` played through `port`, eight at a time.
    static func playEverySession(port: Int) async throws -> [SessionPlay] {
        try await withThrowingTaskGroup(of: SessionPlay.self) { group in
            var pending = sessions[...]
            var plays: [SessionPlay] = []
            func startNext() {
                guard let session = pending.popFirst() else { return }
                group.addTask { try await SessionPlay.play(session: session, entry: "vod/master.m3u8", port: port) }
            }
            for _ in 0..<8 { startNext() }
            while let play = try await group.next() {
                plays.append(play)
                startNext()
            }
            return plays
        }
    }

    /// What `instance` answered to each segment request of the session, by MSN: its status
    /// ("200", "404"), or "reset". Waits until all `count` records are there: a record is emitted
    /// when its response has ended, a moment after the client read it.
    static func segmentAnswers(_ instance: FleetInstance, session: String, count: Int) async throws -> [Int: String] {
        var answers: [Int: String] = [:]
        _ = await eventually {
            let records = (try? await instance.records(session: session)) ?? []
            answers = [:]
            for record in records where record.kind == "segment" {
                guard let msn = record.msn else { continue }
                answers[msn] = record.ending == "reset" ? "reset" : record.status.map(String.init) ?? record.ending
            }
            return answers.count == count
        }
        try #require(answers.count == count, "\(session): \(answers.count) segment records, \(count) requests")
        return answers
    }

    /// "0:200 1:404 2:reset …": one session's segments in MSN order, for comparisons that read well when they fail.
    static func line(_ byMSN: [Int: some CustomStringConvertible]) -> String {
        byMSN.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: " ")
    }
}
