import Foundation
import Testing
@testable import Records

/// What a session's link did to a response survives the record ring's bytes and reads in a line.
@Suite struct RecordLinkTests {
    @Test func theLinkTimesSurviveTheRingAndReadInTheTerminalLine() throws {
        var record = RequestRecord(id: 7, time: Date(timeIntervalSinceReferenceDate: 1000), session: "tv", client: "1.2.3.4:5", method: "GET",
                                   path: "/s/tv/seg.ts", kind: .segment, status: 200, bytesSent: 1000)
        record.link = .init(latency: 0.5, waited: 1.25, stalled: 0.01)
        let ring = RecordRing(capacity: 4)
        ring.append(record)
        let back = try #require(ring.all.first)
        #expect(back.link == record.link)
        #expect(RecordLine.fields(back).last == "link: latency 0.5 s, waited 1.2 s")
        record.link = nil
        ring.append(record)
        #expect(ring.all.last?.link == nil)
        #expect(!RecordLine.fields(record).contains { $0.hasPrefix("link:") })
    }
}
