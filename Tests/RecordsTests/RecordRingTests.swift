import Foundation
import Records
import Testing

@Suite struct RecordRingTests {
    func record(_ id: UInt64, session: String = "a") -> RequestRecord {
        RequestRecord(id: id, time: Date(timeIntervalSince1970: Double(id)), session: session, client: "", method: "GET", path: "/\(id)")
    }

    @Test func keepsTheNewestInOrder() {
        var ring = RecordRing(capacity: 3)
        for id in 1...5 { ring.append(record(UInt64(id))) }
        #expect(ring.count == 3)
        #expect(ring.all.map(\.id) == [3, 4, 5])
    }

    @Test func readsForwardFromACursor() {
        var ring = RecordRing(capacity: 10)
        for id in 1...8 { ring.append(record(UInt64(id), session: id % 2 == 0 ? "b" : "a")) }
        #expect(ring.since(5).map(\.id) == [6, 7, 8])
        #expect(ring.since(0, limit: 2).map(\.id) == [1, 2])
        #expect(ring.since(2) { $0.session == "b" }.map(\.id) == [4, 6, 8])
    }

    @Test func encodesWithTheDocumentedNames() throws {
        var full = record(7)
        full.kind = "segment"
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
