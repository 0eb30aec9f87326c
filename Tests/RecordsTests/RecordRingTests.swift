import Foundation
import Records
import TestSupport
import Testing

@Suite struct RecordRingTests {
    func record(_ id: UInt64, session: String = "a", path: String? = nil) -> RequestRecord {
        RequestRecord(
            id: id, time: Date(timeIntervalSince1970: Double(id)), session: session, client: "", method: "GET", path: path ?? "/\(id)")
    }

    /// A record with every field set, odd values included.
    func full(_ id: UInt64) -> RequestRecord {
        RequestRecord(
            id: id, time: Date(timeIntervalSince1970: 1_764_000_000.123456), session: "tv1+status-503", client: "[::1]:51234",
            method: "GET", path: "/s/tv1/~seg.v2.n42/https/cdn.example/é/seg-42.ts?token=x", kind: .segment, variant: 2,
            rendition: -1, iFrameVariant: 0, copy: "backup", msn: Int.max, part: Int.min,
            upstream: .init(url: "https://cdn.example/é/seg-42.ts", status: 503, connect: 0.0012, firstByte: .infinity, total: 1e-9, error: "timeout"),
            matchedRules: ["s/a", "s/b"], decidingRules: .init(response: "s/a", delay: "s/b", content: ["s/c"]),
            actions: RecordActionTests.everyKind, status: 503, bytesSent: 12345, ending: .clientAbort, duration: 2.5,
            requestHeaders: [.init("range", "bytes=0-99"), .init("user-agent", "AppleCoreMedia/1.0 😀")],
            responseHeaders: [.init("content-type", "text/plain"), .init("retry-after", "")], httpVersion: "HTTP/2",
            cmcd: .init(text: #"bl=1800,sid="é?",su"#, carriages: ["CMCD-Request", "query"], findings: ["a finding", ""]))
    }

    @Test func keepsTheNewestInOrder() {
        let ring = RecordRing(capacity: 3)
        for id in 1...5 { ring.append(record(UInt64(id))) }
        #expect(ring.count == 3)
        #expect(ring.all.map(\.id) == [3, 4, 5])
    }

    @Test func readsForwardFromACursor() {
        let ring = RecordRing(capacity: 10)
        for id in 1...8 { ring.append(record(UInt64(id), session: id % 2 == 0 ? "b" : "a")) }
        #expect(ring.since(5).map(\.id) == [6, 7, 8])
        #expect(ring.since(0, limit: 2).map(\.id) == [1, 2])
        #expect(ring.since(2, session: "b").map(\.id) == [4, 6, 8])
        #expect(ring.since(0, limit: 1, session: "b").map(\.id) == [2])
        #expect(ring.since(0, session: "bb").isEmpty)
        #expect(ring.since(0, limit: 0).isEmpty)
    }

    @Test func givesBackEveryFieldAsAppended() {
        let ring = RecordRing(capacity: 4)
        var minimal = record(2, session: "")
        minimal.path = ""
        for record in [full(1), minimal, full(3)] { ring.append(record) }
        #expect(ring.all == [full(1), minimal, full(3)])
    }

    /// Records of every length wrap around the buffer: what comes back is always the newest ones,
    /// whole and in order, and the buffer never holds more bytes than it has.
    @Test func wrapsAroundTheBufferWithRecordsOfAnyLength() {
        let ring = RecordRing(capacity: 1000, bytesPerRecord: 64)  // the 256 KB minimum: long records evict early
        var generator = SeededGenerator(state: 7)
        var appended: [RequestRecord] = []
        for id in 1...20_000 {
            let length = Int(generator.next() % 3) == 0 ? Int(generator.next() % 8000) : Int(generator.next() % 200)
            let record = record(UInt64(id), session: "s\(id % 3)", path: "/" + String(repeating: "p", count: length))
            ring.append(record)
            appended.append(record)
            if id % 997 == 0 || id > 19_990 {
                let kept = ring.all
                #expect(kept.count == ring.count)
                // Compared by id and path length: a failure prints kilobytes of path otherwise.
                let expected = appended.suffix(kept.count)
                #expect(kept.map(\.id) == expected.map(\.id), "after \(id)")
                #expect(kept.map(\.path.utf8.count) == expected.map(\.path.utf8.count), "after \(id)")
                #expect(kept.last?.session == expected.last?.session)
                #expect(ring.byteCount <= ring.byteCapacity)
                #expect(ring.count <= 1000 && ring.count > 10)
            }
        }
    }

    @Test func cutsVeryLongStringsAtACharacter() {
        let ring = RecordRing(capacity: 10)
        let long = String(repeating: "ab", count: 4095) + "é" + String(repeating: "x", count: 50_000)
        ring.append(record(1, path: long))
        let kept = ring.all[0].path
        #expect(kept.hasSuffix("…"))
        #expect(kept.utf8.count <= 8192 + 3)
        #expect(long.hasPrefix(String(kept.dropLast())))
    }

    @Test func encodesWithTheDocumentedNames() throws {
        var full = record(7)
        full.kind = .segment
        full.msn = 42
        full.upstream = .init(url: "http://o/x.ts", status: 200, connect: 0.001, firstByte: 0.002, total: 0.01)
        full.ending = .clientAbort
        let json = String(decoding: try JSONEncoder().encode(full), as: UTF8.self)
        for name in ["\"id\":7", "\"kind\":\"segment\"", "\"msn\":42", "\"ending\":\"clientAbort\"", "\"firstByte\":0.002"] {
            #expect(json.contains(name), "\(name) in \(json)")
        }
        #expect(try JSONDecoder().decode(RequestRecord.self, from: Data(json.utf8)) == full)
    }
}
