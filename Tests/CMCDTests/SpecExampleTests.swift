import CMCD
import Testing

/// The specification's examples, in our own values: version 1 and 2, in the query and in the four
/// headers, read into typed fields with units, with the carriage of every key.
@Suite struct SpecExampleTests {
    /// A v1 segment request in query mode, as a browser encodes it (`encodeURIComponent`): the
    /// dictionary's `=`, `,` and `"` are percent-encoded, and so is the `/` inside the `nor` path
    /// (encoded twice: once by the player for the path, once for the query).
    @Test func version1QueryIsDecodedAndTyped() throws {
        let target = "/v2/seg_0412.m4s?token=ab%2Fc&CMCD=bl%3D12600%2Cbr%3D2400%2Cbs%2Ccid%3D%22film-4711%22%2Cd%3D6006"
            + "%2Cdl%3D12500%2Cmtp%3D35200%2Cnor%3D%22..%252Fa1%252Fseg_0413.m4s%22%2Cnrr%3D%22100-4999%22%2Cot%3Dv%2Cpr%3D1.25"
            + "%2Crtp%3D9600%2Csf%3Dh%2Csid%3D%229d6b0e2c-77aa-4f59-9a3e-0c5b2a1d7e11%22%2Cst%3Dl%2Csu%2Ctb%3D7800"
        let cmcd = try #require(CMCDData.parse(target: target, headers: []))
        #expect(cmcd.findings.isEmpty, "\(cmcd.findings)")
        #expect(cmcd.version == 1 && cmcd.v == nil)
        #expect(cmcd.carriages == [.query])
        #expect(cmcd.bl == [CMCDTypedValue(12600)] && cmcd.bufferLength == 12600)
        #expect(cmcd.br == [CMCDTypedValue(2400)] && cmcd.bitrate == 2400)
        #expect(cmcd.bs && cmcd.su)
        #expect(cmcd.cid == "film-4711")
        #expect(cmcd.d == 6006 && cmcd.dl == 12500)
        #expect(cmcd.measuredThroughput == 35200)
        #expect(cmcd.nor == [CMCDNextObject(path: "..%2Fa1%2Fseg_0413.m4s")])
        #expect(cmcd.nrr == "100-4999")
        #expect(cmcd.ot == .video && cmcd.pr == 1.25 && cmcd.rtp == 9600)
        #expect(cmcd.sf == .hls && cmcd.st == .live)
        #expect(cmcd.sid == "9d6b0e2c-77aa-4f59-9a3e-0c5b2a1d7e11")
        #expect(cmcd.topBitrate == 7800)
        #expect(cmcd.pairs.allSatisfy { $0.carriage == .query })
        #expect(cmcd.pairs.map(\.key) == ["bl", "br", "bs", "cid", "d", "dl", "mtp", "nor", "nrr", "ot", "pr", "rtp", "sf", "sid", "st", "su", "tb"])
    }

    /// The same kind of request in header mode: the keys split by how often they change.
    @Test func version1HeadersAreSplitByFamily() throws {
        let headers: [(name: String, value: String)] = [
            ("Host", "cdn.example"),
            ("CMCD-Object", "br=1200,d=4000,ot=a,tb=2400"),
            ("cmcd-request", "bl=8100, dl=8000, mtp=17300, su"),
            ("CMCD-Session", "cid=\"news-live\",pr=0.5,sf=h,sid=\"s-19\",st=l"),
            ("CMCD-STATUS", "bs,rtp=4000"),
        ]
        let cmcd = try #require(CMCDData.parse(target: "/audio/seg9.aac", headers: headers))
        #expect(cmcd.findings.isEmpty, "\(cmcd.findings)")
        #expect(cmcd.carriages == [.header(.object), .header(.request), .header(.session), .header(.status)])
        #expect(cmcd.pair("br")?.carriage == .header(.object))
        #expect(cmcd.pair("mtp")?.carriage == .header(.request))
        #expect(cmcd.pair("sid")?.carriage == .header(.session))
        #expect(cmcd.pair("rtp")?.carriage == .header(.status))
        #expect(cmcd.ot == .audio && cmcd.bitrate == 1200 && cmcd.bufferLength == 8100 && cmcd.pr == 0.5)
        #expect(cmcd.bs && cmcd.su && cmcd.rtp == 4000 && cmcd.st == .live)
    }

    /// A v2 request with every kind of value: inner lists of integers naming their object type,
    /// a list of next objects with a range, a list of error codes, the player state, the v2 keys.
    @Test func version2HeadersWithInnerLists() throws {
        let headers: [(name: String, value: String)] = [
            ("CMCD-Object", "br=(4500;v 96;a),d=2002,lb=(800;v 64;a),ot=v,tb=(9000;v 128;a),tpb=(6000;v 128;a)"),
            ("CMCD-Request", "bl=(3400;v 5100;a),dfa=17,dl=3400,ltc=4100,mtp=(23400;v),nor=(\"seg_88.m4v\" \"seg_89.m4v\";r=\"0-9999\"),pb=(4500;v 96;a),sn=12,sta=r,tbl=(12000)"),
            ("CMCD-Session", "cid=\"ep-77\",msd=1350,sf=h,sid=\"abc\",st=ll,v=2"),
            ("CMCD-Status", "bs,bsa=(2;v),bsd=(900;v),bsda=(2300;v),cdn=\"edge-b\",ec=(\"E_NET\" \"E_DRM\"),nr,pr=1.5,pt=80500,rtp=30000"),
        ]
        let cmcd = try #require(CMCDData.parse(target: "/v/seg_87.m4v", headers: headers))
        #expect(cmcd.findings.isEmpty, "\(cmcd.findings)")
        #expect(cmcd.version == 2 && cmcd.v == 2)
        #expect(cmcd.br == [CMCDTypedValue(4500, .video), CMCDTypedValue(96, .audio)])
        #expect(cmcd.bitrate == 4500 && cmcd.br?.value(for: .audio) == 96)
        #expect(cmcd.bufferLength == 3400 && cmcd.bl?.value(for: .audio) == 5100)
        #expect(cmcd.topBitrate == 9000 && cmcd.lb?.value(for: .video) == 800 && cmcd.tpb?.value(for: .audio) == 128)
        #expect(cmcd.measuredThroughput == 23400)
        #expect(cmcd.nor == [CMCDNextObject(path: "seg_88.m4v"), CMCDNextObject(path: "seg_89.m4v", range: "0-9999")])
        #expect(cmcd.sta == .rebuffering && cmcd.st == .lowLatencyLive && cmcd.msd == 1350 && cmcd.ltc == 4100)
        #expect(cmcd.dfa == 17 && cmcd.sn == 12 && cmcd.tbl == [CMCDTypedValue(12000)] && cmcd.pb?.count == 2)
        #expect(cmcd.bs && cmcd.nr && !cmcd.bg)
        #expect(cmcd.bsa == [CMCDTypedValue(2, .video)] && cmcd.bsd == [CMCDTypedValue(900, .video)] && cmcd.bsda?.first?.value == 2300)
        #expect(cmcd.cdn == "edge-b" && cmcd.ec == ["E_NET", "E_DRM"] && cmcd.pt == 80500 && cmcd.rtp == 30000 && cmcd.pr == 1.5)
    }

    /// v2 in the query, with a vendor key and an escaped string; the inner list's space is `%20`.
    @Test func version2QueryKeepsVendorKeysRaw() throws {
        let text = #"bl=(0),br=(1800;v),com.example-ab=test-b,com.example-note="say \"hi\" \\ bye",ot=i,sid="q1",sta=s,su,v=2,x-count=4"#
        let cmcd = try #require(CMCDData.parse(target: "/init.mp4?CMCD=" + Encode.uriComponent(text), headers: []))
        #expect(cmcd.findings.isEmpty, "\(cmcd.findings)")
        #expect(cmcd.ot == .initSegment && cmcd.sta == .starting && cmcd.su && cmcd.bufferLength == 0)
        #expect(cmcd.customPairs.map(\.key) == ["com.example-ab", "com.example-note", "x-count"])
        #expect(cmcd.pair("com.example-note")?.value == .item(CMCDItem(.string(#"say "hi" \ bye"#))))
        #expect(cmcd.pair("com.example-ab")?.value == .item(CMCDItem(.token("test-b"))))
        #expect(cmcd.pair("x-count")?.value == .item(CMCDItem(.integer(4))))
    }

    /// A `+` in a form-encoded query is a space.
    @Test func plusInTheQueryIsASpace() throws {
        let cmcd = try #require(CMCDData.parse(target: "/a.m4s?CMCD=bl%3D(2000%3Bv+1500%3Ba)%2Cv%3D2", headers: []))
        #expect(cmcd.findings.isEmpty, "\(cmcd.findings)")
        #expect(cmcd.bl == [CMCDTypedValue(2000, .video), CMCDTypedValue(1500, .audio)])
    }

    /// Parsing, writing back and parsing again gives the same pairs (what records keep is `compactText`).
    @Test func compactTextParsesBackToTheSamePairs() throws {
        let headers: [(name: String, value: String)] = [
            ("CMCD-Request", #"bl=(3400;v 5100;a),nor=("a b.m4v";r="0-1"),x-q="\"\\",su"#),
            ("CMCD-Session", "pr=1.0,sid=\"z\",v=2,x-f=?0,x-b=:aGk=:,x-d=-12.5"),
        ]
        let first = try #require(CMCDData.parse(target: nil, headers: headers))
        let again = try #require(CMCDData.parse(target: "/x?CMCD=" + Encode.uriComponent(first.compactText), headers: []))
        #expect(Dictionary(uniqueKeysWithValues: again.pairs.map { ($0.key, $0.value) }) == Dictionary(uniqueKeysWithValues: first.pairs.map { ($0.key, $0.value) }))
        #expect(first.compactText.contains(#"pr=1.0"#) && first.compactText.contains(#"x-d=-12.5"#))
    }

    @Test func aRequestWithoutCMCDHasNone() {
        #expect(CMCDData.parse(target: "/a.m3u8?x=1&CMCDX=2&cmcd=3", headers: [("Accept", "*/*")]) == nil)
        #expect(CMCDData.parse(target: nil, headers: []) == nil)
        // An empty argument is CMCD that says nothing.
        #expect(CMCDData.parse(target: "/a.m3u8?CMCD=", headers: [])?.pairs == [])
    }

    /// The key registry: units, headers and versions as the specification's table gives them.
    @Test func registryGivesUnitsHeadersAndVersions() {
        #expect(CMCDKey.br.unit == .kbps && CMCDKey.mtp.unit == .kbps && CMCDKey.rtp.unit == .kbps)
        #expect(CMCDKey.bl.unit == .milliseconds && CMCDKey.d.unit == .milliseconds && CMCDKey.bsd.unit == .milliseconds)
        #expect(CMCDKey.bl.header(version: 1) == .request && CMCDKey.tb.header(version: 2) == .object)
        #expect(CMCDKey.pr.header(version: 1) == .session && CMCDKey.pr.header(version: 2) == .status)
        #expect(CMCDKey.nrr.versions == .onlyV1 && CMCDKey.sta.versions == .sinceV2 && CMCDKey.sid.versions == .both)
        #expect(CMCDKey.allCases.filter { $0.versions != .sinceV2 }.map(\.rawValue).sorted()
            == ["bl", "br", "bs", "cid", "d", "dl", "mtp", "nor", "nrr", "ot", "pr", "rtp", "sf", "sid", "st", "su", "tb", "v"])
    }
}

/// `encodeURIComponent`, for building query arguments the way a browser player does.
enum Encode {
    static func uriComponent(_ text: String) -> String {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()".utf8)
        var out = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                out.append(Character(Unicode.Scalar(byte)))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}
