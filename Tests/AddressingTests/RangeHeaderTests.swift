import Addressing
import Testing

/// One parser for `Range`: the proxy's 400s, the origins' 206/416 and HAR's first byte all read it.
@Suite struct RangeHeaderTests {
    @Test func validRangesParse() {
        #expect(RangeHeader.parse("bytes=0-99") == .bytes(RangeHeader(specs: [.from(0, through: 99)])))
        #expect(RangeHeader.parse("Bytes = 5- , -20") == .bytes(RangeHeader(specs: [.from(5, through: nil), .suffix(20)])))
        #expect(RangeHeader.parse("items=1-2") == .otherUnit)
    }

    @Test func malformedRangesSayWhatIsWrong() {
        for bad in ["bytes=", "bytes=a-b", "bytes=9-1", "bytes=-", "bytes=1-2-3", "bytes=9999999999999999999-", ""] {
            guard case .invalid(let message) = RangeHeader.parse(bad) else {
                Issue.record("\(bad) parsed")
                continue
            }
            #expect(message.contains("Range"), "\(message)")
        }
        let many = "bytes=" + (0..<17).map { "\($0)-\($0)" }.joined(separator: ",")
        #expect(RangeHeader.parse(many) == .invalid("Range asks for 17 ranges; at most 16 are accepted"))
    }

    @Test func singleRangesResolveAgainstALength() {
        #expect(RangeHeader.single("bytes=10-19")?.resolved(length: 100) == 10...19)
        #expect(RangeHeader.single("bytes=90-")?.resolved(length: 100) == 90...99)
        #expect(RangeHeader.single("bytes=90-500")?.resolved(length: 100) == 90...99)
        #expect(RangeHeader.single("bytes=-30")?.resolved(length: 100) == 70...99)
        #expect(RangeHeader.single("bytes=-300")?.resolved(length: 100) == 0...99)
        // Unsatisfiable: 416.
        #expect(RangeHeader.single("bytes=100-")?.resolved(length: 100) == .some(nil))
        #expect(RangeHeader.single("bytes=-0")?.resolved(length: 100) == .some(nil))
        // Not one usable range: the whole body.
        #expect(RangeHeader.single("bytes=0-1,5-6") == nil)
        #expect(RangeHeader.single("bytes=x") == nil)
        #expect(RangeHeader.single(nil) == nil)
        #expect(RangeHeader.firstByte("bytes=4096-8191") == 4096)
        #expect(RangeHeader.firstByte("bytes=-10") == nil)
        #expect(RangeHeader.value(first: 4096, length: 4096) == "bytes=4096-8191")
        #expect(RangeHeader.value(first: 0, length: 0) == "bytes=0-0")
    }

    @Test func recordedContentRangesContainRequests() throws {
        let recorded = try #require(ContentRange(header: "bytes 100-199/1000"))
        #expect(recorded == ContentRange(first: 100, last: 199, length: 1000))
        #expect(RangeHeader.Spec.from(120, through: 150).isInside(recorded))
        #expect(!RangeHeader.Spec.from(50, through: 150).isInside(recorded))
        #expect(!RangeHeader.Spec.suffix(10).isInside(recorded))
        let tail = try #require(ContentRange(header: "bytes 900-999/1000"))
        #expect(RangeHeader.Spec.suffix(50).isInside(tail))
        #expect(RangeHeader.Spec.from(950, through: nil).isInside(tail))
        #expect(ContentRange(header: "bytes 100-199/*")?.length == nil)
        #expect(ContentRange(header: "bytes 9-1/10") == nil)
        #expect(ContentRange(header: "items 1-2/3") == nil)
    }

    /// What an origin answers for a 1000-byte body: nil the whole body (200), "416", or a slice (206).
    @Test(arguments: [
        ("bytes=0-99", "0...99"), ("bytes=10-", "10...999"), ("bytes=-100", "900...999"), ("bytes=-5000", "0...999"),
        ("bytes=990-2000", "990...999"), ("bytes=999-999", "999...999"),
        ("bytes=1000-", "416"), ("bytes=1000-1001", "416"), ("bytes=-0", "416"),
        ("bytes=0-1,5-6", nil), ("bytes=5-1", nil), ("items=0-1", nil), ("bytes=a-b", nil), ("bytes=+1-2", nil),
    ] as [(String, String?)])
    func originsAnswer(header: String, expected: String?) {
        let answer = RangeHeader.single(header).map { spec in spec.resolved(length: 1000).map { "\($0)" } ?? "416" }
        #expect(answer == expected)
    }
}
