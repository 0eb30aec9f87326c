import CMCD
import Testing

/// Stripping CMCD leaves the rest of the URL byte for byte, so a signature over it still holds.
@Suite struct StripTests {
    @Test func theCMCDArgumentGoesAndNothingElseChanges() {
        let cases: [(String, String)] = [
            ("/a.ts?CMCD=bl%3D100", "/a.ts"),
            ("/a.ts?CMCD", "/a.ts"),
            ("/a.ts?CMCD=bl%3D100&token=a%2Fb", "/a.ts?token=a%2Fb"),
            ("/a.ts?token=a%2Fb&CMCD=bl%3D100", "/a.ts?token=a%2Fb"),
            ("/a.ts?z=1&CMCD=bl%3D100&a=2&sig=Zz%3D%3D", "/a.ts?z=1&a=2&sig=Zz%3D%3D"),
            ("/a.ts?CMCD=1&x=2&CMCD=3", "/a.ts?x=2"),
            ("/a.ts?a=1&&CMCD=2&b", "/a.ts?a=1&&b"),
            ("/a.ts?CMCD=1#part", "/a.ts#part"),
            ("/a.ts?x=1&CMCD=1#p?CMCD=2", "/a.ts?x=1#p?CMCD=2"),
            ("http://cdn.example:8080/v/a.ts?CMCD=ot%3Dv&exp=17", "http://cdn.example:8080/v/a.ts?exp=17"),
            ("/a.ts?q=\u{e9}t\u{e9}&CMCD=1&r=%C3%A9", "/a.ts?q=\u{e9}t\u{e9}&r=%C3%A9"),
        ]
        for (target, stripped) in cases {
            #expect(CMCDStrip.target(target) == stripped, "\(target)")
        }
    }

    @Test func otherArgumentsThatLookLikeCMCDStay() {
        for target in ["/a.ts", "/a.ts?", "/a.ts?cmcd=1", "/a.ts?CMCDX=1", "/a.ts?xCMCD=1", "/a.ts?x=CMCD", "/a.ts?%43MCD=1", "/a.ts#CMCD=1"] {
            #expect(CMCDStrip.target(target) == target, "\(target)")
        }
    }

    /// A CDN signs the URL it hands out; the player appends CMCD (`?` or `&`); stripping gives the
    /// signed URL back exactly, whatever its arguments.
    @Test func aSignedURLSurvivesAppendAndStrip() {
        var random = SeededRandom(seed: 0x5eed)
        let pieces = ["a", "b%2F", "=", "%3D", "x", "&", "~", ".", "%25", "+", "token", "\u{e9}", ";", ""]
        for _ in 0..<500 {
            var path = "/v/seg_\(random.next() % 1000).m4s"
            let arguments = Int(random.next() % 4)
            if arguments > 0 {
                path += "?" + (0..<arguments).map { _ in
                    (0..<Int(1 + random.next() % 4)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
                }.joined(separator: "&")
            }
            let signed = path + "&sig=" + String(Self.checksum(path), radix: 16)
            let withCMCD = signed + (signed.contains("?") ? "&" : "?") + "CMCD=" + Encode.uriComponent("bl=1200,sid=\"s\"")
            let stripped = CMCDStrip.target(withCMCD)
            #expect(stripped == signed, "\(withCMCD)")
            #expect(stripped.hasSuffix(String(Self.checksum(path), radix: 16)))
        }
    }

    @Test func theFourHeadersAreDropped() {
        let names = ["Host", "cmcd-object", "CMCD-Request", "Cmcd-Session", "CMCD-STATUS", "CMCD-Other", "X-CMCD-Request"]
        #expect(CMCDStrip.headersToDrop(names) == ["cmcd-object", "CMCD-Request", "Cmcd-Session", "CMCD-STATUS"])
        #expect(CMCDStrip.headerNames == ["CMCD-Object", "CMCD-Request", "CMCD-Session", "CMCD-Status"])
    }

    static func checksum(_ text: String) -> UInt32 { text.utf8.reduce(2_166_136_261) { ($0 ^ UInt32($1)) &* 16_777_619 } }
}

/// SplitMix64: the same sequence for the same seed, on every machine.
struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }
}
