import Foundation
import Proxy
import Records
import Testing
import TestSupport

/// One record per request, whatever happened to it, with what the client actually got.
@Suite struct RecordTests {
    static let rules = WireFaultTests.scenario("""
        {"id": "fail", "match": {"kind": "segment", "variant": {"index": 1}, "msn": 3}, "action": {"status": 503}},
        {"id": "cut", "match": {"kind": "segment", "variant": {"index": 1}, "msn": 4}, "action": {"truncate": {"afterBytes": 1000}}},
        {"id": "stuck", "match": {"kind": "segment", "variant": {"index": 0}, "msn": 4}, "action": {"hang": "300ms"}}
        """)

    /// Waits for the record of the request to `path` (records are emitted when the response ends;
    /// up to 10 s, since a loaded CI machine can be slow to get there).
    static func record(_ proxy: ProxyHarness, _ path: String) async -> RequestRecord? {
        func found() -> RequestRecord? { proxy.server.control.records(session: nil).last { $0.path == path } }
        _ = await eventually { found() != nil }
        return found()
    }

    @Test func everyRequestLeavesARecordOfWhatTheClientGot() async throws {
        try await WireFaultTests.withFixture(Self.rules) { proxy, origin in
            let port = origin.port
            let clean = HLSFixture.segmentPath(port: port, variant: 1, msn: 2, session: "tv1")
            #expect(try await proxy.get(clean).status == 200)
            let ok = try #require(await Self.record(proxy, clean))
            #expect(ok.session == "tv1")
            #expect(ok.kind == .segment && ok.variant == 1 && ok.msn == 2)
            #expect(ok.status == 200 && ok.ending == .complete && ok.bytesSent == HLSFixture.segmentSize)
            #expect(ok.upstream?.status == 200)
            let timings = try #require(ok.upstream)
            #expect(timings.firstByte != nil && timings.total != nil, "libcurl's timings: \(timings)")
            #expect((timings.firstByte ?? 0) <= (timings.total ?? 0) && (timings.total ?? 0) <= ok.duration)
            #expect(ok.upstream?.url == "http://127.0.0.1:\(port)/v1/seg2.ts")
            #expect(!ok.isFaulted && ok.matchedRules.isEmpty)
            #expect(ok.client.hasPrefix("127.0.0.1:"))

            let failed = HLSFixture.segmentPath(port: port, variant: 1, msn: 3, session: "tv1")
            #expect(try await proxy.get(failed).status == 503)
            let fault = try #require(await Self.record(proxy, failed))
            #expect(fault.status == 503 && fault.upstream == nil, "answered without the origin")
            #expect(fault.matchedRules == ["test/fail"] && fault.decidingRules.response == "test/fail")
            #expect(fault.actions == [.init(.status(503), rule: "test/fail")], "\(fault.actions)")

            let cut = HLSFixture.segmentPath(port: port, variant: 1, msn: 4, session: "tv1")
            let cutResponse = try await proxy.get(cut)
            #expect(cutResponse.body.count == 1000)
            let truncated = try #require(await Self.record(proxy, cut))
            #expect(truncated.ending == .truncated && truncated.bytesSent == 1000 && truncated.status == 200)

            let stuck = HLSFixture.segmentPath(port: port, variant: 0, msn: 4, session: "tv1")
            _ = try? await proxy.get(stuck, readTimeout: 5)
            let hang = try #require(await Self.record(proxy, stuck))
            #expect(hang.ending == .hang && hang.status == nil)
            #expect(hang.duration >= 0.25)

            #expect(try await proxy.get("/@nowhere/x.ts").status == 404)
            let refused = try #require(await Self.record(proxy, "/@nowhere/x.ts"))
            #expect(refused.status == 404 && refused.kind == nil && refused.session == "default")

            let ids = proxy.server.control.records(session: nil).map(\.id)
            #expect(ids == ids.sorted() && Set(ids).count == ids.count, "ids increase")
            #expect(proxy.server.control.records(session: "tv1").count == 4)
        }
    }

    /// Ids are a reader's cursor ("since"): in the ring they must follow each other in the order the
    /// records went in, also when both event loops end requests at the same moment, or a reader
    /// paging forward would step over a record numbered before one it already has.
    @Test func idsFollowTheRingsOrderUnderConcurrentRequests() async throws {
        try await WireFaultTests.withFixture(Self.rules) { proxy, origin in
            let paths = (0..<8).map { HLSFixture.segmentPath(port: origin.port, variant: 0, msn: $0 % 3, session: "c\($0)") }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for path in paths {
                    group.addTask {
                        for _ in 0..<40 {
                            let status = try await proxy.get(path).status
                            #expect(status == 200)
                        }
                    }
                }
                try await group.waitForAll()
            }
            var kept: [RequestRecord] = []
            func ours() -> Int { kept.count { $0.session.hasPrefix("c") } }  // not the fixture's own
            _ = await eventually {
                kept = proxy.server.control.records(session: nil)
                return ours() >= 320
            }
            #expect(ours() == 320)
            let total = kept.count
            let ids = kept.map(\.id)
            #expect(ids == Array(1...UInt64(ids.count)), "ids in ring order: \(ids.prefix(40))…")
            #expect(proxy.server.control.records(session: nil, since: UInt64(total - 160)).map(\.id) == Array(UInt64(total - 159)...UInt64(total)))
        }
    }

    @Test func aClientThatLeavesMidBodyIsAClientAbort() async throws {
        try await TestOrigin.with { origin in
            // 20 s of body: a test process starved for seconds after it has closed (the unit phase's
            // start-up) must still find the proxy mid-body, not done with a body the socket buffers took.
            origin.route("/slow.ts", .generated(size: 10_000_000, chunk: 50_000, delayBetweenChunks: .milliseconds(100)))
            try await ProxyHarness.with(upstreamURL: origin.baseURL) { proxy in
                let port = proxy.port
                try await RawHTTP.run {
                    let connection = try RawHTTPConnection(port: port, readTimeout: 5)
                    connection.sendRaw(Array("GET /slow.ts HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
                    // Leave once the head and some body have arrived, however slow the machine is; a
                    // fixed sleep let a loaded CI machine close before the proxy had answered at all.
                    var received = 0
                    while received < 60_000 {
                        let read = connection.readSome(limit: 65_536)
                        received += read.count
                        if read.ending != nil { break }
                    }
                    connection.close()
                }
                let record = try #require(await Self.record(proxy, "/slow.ts"))
                #expect(record.ending == .clientAbort)
                #expect(record.status == 200)
                #expect(record.bytesSent > 0 && record.bytesSent < 10_000_000)
            }
        }
    }

    @Test func theEventsFileHasOneJSONLinePerRequest() async throws {
        try await withTemporaryFolder("events") { folder in
            let path = folder.path("events.jsonl")
            try await TestOrigin.with { origin in
                HLSFixture.install(on: origin)
                try await ProxyHarness.with(upstreamURL: origin.baseURL, configure: { $0.eventsFile = path }) { proxy in
                    for n in 0..<5 { #expect(try await proxy.get("/v0/seg\(n).ts").status == 200) }
                    #expect(try await proxy.get("/missing.ts").status == 404)
                    // A record is emitted once its response is written, so the client can be done before it is.
                    _ = await eventually { proxy.server.control.snapshot().recordsKept >= 6 }
                    proxy.server.control.flushRecords()
                    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
                    #expect(lines.count == 6)
                    let decoder = JSONDecoder()
                    decoder.dateDecodingStrategy = .iso8601withFractions
                    // Lines are in the order requests ended; sorted by arrival they are the order they were made in.
                    let records = try lines.map { try decoder.decode(RequestRecord.self, from: Data($0.utf8)) }.sorted(by: RequestRecord.chronological)
                    #expect(records.map(\.status) == [200, 200, 200, 200, 200, 404])
                    #expect(records.last?.upstream?.status == 404)
                    #expect(lines[0].contains("\"time\":\"20"), "ISO 8601 time: \(lines[0].prefix(200))")
                }
            }
        }
    }
}

extension JSONDecoder.DateDecodingStrategy {
    static let iso8601withFractions = JSONDecoder.DateDecodingStrategy.custom { decoder in
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let date = try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not ISO 8601: \(text)"))
        }
        return date
    }
}
