import CMCD
import Testing

/// Valid CMCD, mutated by a seeded generator, in headers and in the query: the parser always
/// returns, within its limits, and what it read writes back to text that reads the same again.
@Suite struct RobustnessTests {
    static let valid = [
        #"bl=21300,br=3200,bs,cid="faec5fc2",d=4004,dl=18500,mtp=48100,nor="..%2F300kbps%2Ftrack.m4v",nrr="12323-48763",ot=v,pr=1.08,rtp=12000,sf=d,sid="6e2fb550",st=v,su,tb=6000"#,
        #"bg,bl=(2100;v 1800;a),br=(3000;v 164;a),bs,bsa=(3;v),bsd=(1200;v 100;a),cid="c-1",cs="g48d",d=4000,dfa=32,dl=1000,ec=("2001"),lb=(500;v 32;a),ltc=13500,msd=1700,mtp=(15000;v 6000;a),nor=("next.mp4";r="0-99"),nr,ot=v,pb=(2000;v 164;a),pr=1.1,pt=632782,rtp=12000,sf=d,sid="s-1",sn=0,st=l,sta=p,su,tb=(6000;v 350;a),tbl=(2000;v 2000;a),tpb=(5000;v 164;a),v=2"#,
        #"com.example-a="x\"y\\z",x-b=?0,x-c=:aGVsbG8=:,x-d=-12.125,x-e=tok/en:1,x-f=(1 "two" three ?1);p=1"#,
    ]
    static let specials = Array(#"",;=()? :\-.*%+"#.utf8) + [0x00, 0x09, 0x7F, 0xC3, 0xA9, 0xFF]

    static func mutate(_ text: String, _ random: inout SeededRandom) -> [UInt8] {
        var bytes = Array(text.utf8)
        for _ in 0..<(1 + random.below(6)) {
            let at = random.below(bytes.count + 1)
            switch random.below(7) {
            case 0: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
            case 1: bytes.insert(specials[random.below(specials.count)], at: at)
            case 2: if at < bytes.count { bytes.removeSubrange(at..<min(bytes.count, at + 1 + random.below(8))) }
            case 3: if at < bytes.count { bytes[at] = specials[random.below(specials.count)] }
            case 4: bytes = Array(bytes.prefix(at))
            case 5:
                let piece = bytes[at..<min(bytes.count, at + 1 + random.below(20))]
                for _ in 0..<random.below(400) { bytes.insert(contentsOf: piece, at: at) }
            default: if at + 1 < bytes.count { bytes.swapAt(at, at + 1) }
            }
        }
        return bytes
    }

    @Test func mutatedCMCDNeverEscapesTheLimits() throws {
        var random = SeededRandom(seed: 20_251_128)
        let limits = CMCDLimits(maxBytesPerCarriage: 4096, maxKeys: 40, maxListItems: 8, maxFindings: 16)
        var readSomething = 0, foundSomething = 0
        for round in 0..<3000 {
            let bytes = Self.mutate(Self.valid[round % Self.valid.count], &random)
            let text = String(decoding: bytes, as: UTF8.self)
            let field = CMCDHeaderField.allCases[random.below(4)].rawValue
            let asHeader = try #require(CMCDData.parse(target: nil, headers: [(field, text)], limits: limits))
            let asQuery = try #require(CMCDData.parse(target: "/s.m4s?a=1&CMCD=" + Self.percentEncode(bytes), headers: [], limits: limits))
            let raw = try #require(CMCDData.parse(target: "/s.m4s?CMCD=" + text, headers: [], limits: limits))
            for cmcd in [asHeader, asQuery, raw] {
                #expect(cmcd.pairs.count <= limits.maxKeys)
                #expect(cmcd.findings.count <= limits.maxFindings + 1)
                #expect(cmcd.findings.allSatisfy { !$0.description.isEmpty })
                for pair in cmcd.pairs {
                    if case .innerList(let items, let parameters) = pair.value {
                        #expect(items.count <= limits.maxListItems && parameters.count <= limits.maxListItems)
                    }
                }
                // What was read writes back to text that reads back the same, without syntax findings.
                let again = try #require(CMCDData.parse(target: "/?CMCD=" + Self.percentEncode(Array(cmcd.compactText.utf8)), headers: []))
                #expect(again.compactText == cmcd.compactText, "\(text)")
                readSomething += cmcd.pairs.isEmpty ? 0 : 1
                foundSomething += cmcd.findings.isEmpty ? 0 : 1
            }
        }
        // The mutations are neither all harmless nor all fatal.
        #expect(readSomething > 3000 && foundSomething > 3000)
    }

    static func percentEncode(_ bytes: [UInt8]) -> String {
        var out = ""
        for byte in bytes {
            if (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) {
                out.append(Character(Unicode.Scalar(byte)))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}
