import CMCD
import Testing

/// A session's CMCD against the specification: keys per object type, what is missing where it is
/// expected, values out of range, the session ID changing.
@Suite struct ConformanceTests {
    /// One request: the proxy's idea of the object, and CMCD in the query.
    static func request(_ time: Double, _ hint: CMCDObjectType?, _ cmcd: String?) -> CMCDObservation {
        CMCDObservation(
            time: time, objectTypeHint: hint,
            cmcd: cmcd.flatMap { CMCDData.parse(target: "/x?CMCD=" + Encode.uriComponent($0), headers: []) }
        )
    }

    static let session = "sid=\"d1f0\",sf=h,st=v,v=2"

    @Test func aWellBehavedPlayerHasNoIssues() {
        let report = CMCDConformance.check([
            Self.request(0.0, .manifest, "ot=m,su," + Self.session),
            Self.request(0.2, .manifest, "ot=m,su," + Self.session),
            Self.request(0.4, .initSegment, "br=(2000;v),ot=i,su,tb=(6000;v)," + Self.session),
            Self.request(0.5, .video, "bl=(0),br=(2000;v),d=4000,mtp=(14300),ot=v,sta=s,su,tb=(6000;v)," + Self.session),
            Self.request(4.9, .video, "bl=(4000),br=(2000;v),d=4000,msd=900,mtp=(18100),ot=v,sta=p,tb=(6000;v)," + Self.session),
        ])
        #expect(report.issues == [], "\(report.issues.map(\.description))")
        #expect(report.requests == 5 && report.requestsWithCMCD == 5 && report.versions == [2])
        #expect(report.keyUse.map(\.objectType) == [.manifest, .video, .initSegment])
        #expect(report.keyUse[0].requests == 2 && report.keyUse[0].keys == ["ot": 2, "su": 2, "sid": 2, "sf": 2, "st": 2, "v": 2])
        #expect(report.keyUse[1].keys["bl"] == 2 && report.keyUse[1].keys["msd"] == 1)
    }

    @Test func missingKeysAreCountedPerObjectType() {
        let report = CMCDConformance.check([
            Self.request(0.0, .manifest, "su"),
            Self.request(1.0, .video, "bl=3000,ot=v,sid=\"a\""),
            Self.request(2.0, .audio, "bl=3000,br=128,ot=a,sid=\"a\""),
            Self.request(3.0, .video, "bl=3000,ot=v,sid=\"a\""),
        ])
        let missing = report.issues.filter { $0.kind == .missing }.map { "\($0.key!) on \($0.objectType?.rawValue ?? "-") ×\($0.count) from \($0.firstRequest)" }
        #expect(missing == ["sid on m ×1 from 0", "ot on m ×1 from 0", "br on v ×2 from 1", "d on v ×2 from 1", "d on a ×1 from 2"])
        #expect(report.issues.first { $0.key == "br" }?.description
            == "br not sent on video (v), where the specification expects it (2 times, first at request 2, 1.0 s)")
    }

    @Test func aSessionIDChangingMidSessionIsReported() {
        let report = CMCDConformance.check([
            Self.request(0.0, .manifest, "ot=m,sid=\"one\""),
            Self.request(1.5, .manifest, "ot=m,sid=\"one\""),
            Self.request(3.25, .manifest, "ot=m,sid=\"two\""),
            Self.request(4.0, .manifest, "ot=m,sid=\"three\",st=l"),
            Self.request(5.0, .manifest, "ot=m,sid=\"three\",st=v"),
        ])
        let sid = report.issues.first { $0.key == "sid" }
        #expect(sid?.kind == .changed(from: "one", to: "two") && sid?.count == 2 && sid?.firstRequest == 2 && sid?.firstTime == 3.25)
        #expect(sid?.description == "sid changed mid-session, one → two (2 times, first at request 3, 3.3 s)")
        #expect(report.issues.first { $0.key == "st" }?.kind == .changed(from: "l", to: "v"))
        #expect(report.issues.count == 2)
    }

    @Test func valuesOutOfRangeAreReported() {
        let report = CMCDConformance.check([
            Self.request(0.0, .video, "bl=-100,br=3000,d=4000,dl=250,mtp=12345,ot=v,rtp=5000,sid=\"a\",tb=2000"),
            Self.request(1.0, .video, "bl=2150,br=(800;v),d=4000,lb=(900;v),ot=v,sid=\"a\",tb=(750;v),v=2"),
            Self.request(2.0, .video, "bl=-300,br=800,d=4000,ot=v,sid=\"a\""),
        ])
        let kinds = report.issues.map(\.kind)
        #expect(kinds.contains(.finding(.negative("-100"), .query)))
        #expect(report.issues.first { $0.kind == .finding(.negative("-100"), .query) }?.count == 2)
        #expect(kinds.contains(.notRounded(step: 100, value: 250)))
        #expect(kinds.contains(.notRounded(step: 100, value: 12345)))
        #expect(kinds.contains(.topBitrateBelowBitrate(top: 2000, bitrate: 3000)))
        #expect(report.issues.first { $0.key == "tb" }?.count == 2)
        #expect(kinds.contains(.lowestBitrateAboveTop(lowest: 900, top: 750)))
        #expect(report.issues.first { $0.key == "bl" && $0.kind == .notRounded(step: 100, value: 2150) } != nil)
        #expect(!kinds.contains(.notRounded(step: 100, value: 5000)))
    }

    @Test func keysOnTheWrongObjectTypeAndAWrongOtAreReported() {
        let report = CMCDConformance.check([
            Self.request(0.0, .manifest, "d=4000,ot=m,sid=\"a\""),
            Self.request(1.0, .manifest, "bl=2000,br=1000,d=4000,ot=v,sid=\"a\""),
            Self.request(2.0, .audio, "bl=2000,br=128,d=4000,ot=v,sid=\"a\""),
            Self.request(3.0, .key, "ot=k,sid=\"a\",tpb=(5000;v),v=2"),
        ])
        #expect(report.issues.contains { $0.kind == .notForObjectType && $0.key == "d" && $0.objectType == .manifest })
        #expect(report.issues.contains { $0.kind == .notForObjectType && $0.key == "tpb" && $0.objectType == .key })
        #expect(report.issues.filter { if case .objectTypeDisagrees = $0.kind { true } else { false } }.map(\.kind)
            == [.objectTypeDisagrees(sent: .video, actual: .manifest)])
    }

    @Test func onceASessionKeysAndRequestsWithoutCMCD() {
        let report = CMCDConformance.check([
            Self.request(0.0, .video, "br=(1),d=4000,msd=700,ot=v,sid=\"a\",v=2"),
            Self.request(1.0, nil, nil),
            Self.request(2.0, .video, "br=(1),d=4000,msd=700,ot=v,sid=\"a\",v=2"),
            Self.request(3.0, nil, nil),
        ])
        #expect(report.issues.map(\.kind) == [.sentAgain, .withoutCMCD])
        #expect(report.issues[1].count == 2 && report.issues[1].firstRequest == 1)
        #expect(report.requestsWithCMCD == 2 && report.keyUse.count == 1)
        #expect(CMCDConformance.check([Self.request(0, .video, nil)]).issues == [])
    }

    @Test func issuesAreBounded() {
        let requests = (0..<300).map { Self.request(Double($0), .video, "x\($0)=1,br=1,d=1,ot=v,sid=\"a\"") }
        let report = CMCDConformance.check(requests, maxIssues: 10)
        #expect(report.issues.count == 10 && report.issuesLeftOut == 290)
    }
}
