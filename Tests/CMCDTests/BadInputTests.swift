import CMCD
import Testing

/// Bad CMCD never fails: the parser returns what it could read and says what was wrong, typed.
@Suite struct BadInputTests {
    static func headers(_ field: String, _ value: String) -> [(name: String, value: String)] { [(field, value)] }

    static func parse(request value: String) -> CMCDData {
        CMCDData.parse(target: nil, headers: headers("CMCD-Request", value))!
    }

    static func problems(_ cmcd: CMCDData) -> [CMCDProblem] { cmcd.findings.map(\.problem) }

    @Test func anOversizedCarriageIsNotReadButTheOthersAre() throws {
        let long = "x-pad=\"" + String(repeating: "a", count: 9000) + "\""
        let cmcd = try #require(CMCDData.parse(target: "/s.ts?CMCD=" + long, headers: Self.headers("CMCD-Session", "sid=\"ok\"")))
        #expect(cmcd.sid == "ok" && cmcd.pairs.count == 1)
        #expect(cmcd.findings == [CMCDFinding(carriage: .query, problem: .carriageTooLong(length: long.utf8.count, limit: 8192))])
        #expect(cmcd.carriages == [.query, .header(.session)])
        // The limit is a parameter, and repeated header lines count together.
        let lines: [(name: String, value: String)] = [("CMCD-Request", "bl=100"), ("CMCD-Request", "dl=100")]
        let small = try #require(CMCDData.parse(target: nil, headers: lines, limits: CMCDLimits(maxBytesPerCarriage: 12)))
        #expect(small.pairs.isEmpty && Self.problems(small) == [.carriageTooLong(length: 13, limit: 12)])
        let joined = try #require(CMCDData.parse(target: nil, headers: lines))
        #expect(joined.bufferLength == 100 && joined.dl == 100)
    }

    @Test func keysBeyondTheLimitAreNotRead() {
        let many = (0..<100).map { "x-k\($0)=\($0)" }.joined(separator: ",")
        let cmcd = Self.parse(request: many)
        #expect(cmcd.pairs.count == 64 && cmcd.pairs.last?.key == "x-k63")
        #expect(Self.problems(cmcd) == [.tooManyKeys(limit: 64)])
        let lists = Self.parse(request: "bl=(" + (1...40).map { String($0 * 100) }.joined(separator: " ") + "),dl=300")
        #expect(lists.bl == nil && lists.dl == 300 && Self.problems(lists) == [.tooManyListItems(limit: 32)])
    }

    @Test func repeatedKeysKeepTheLaterValueAndSaySo() throws {
        let same = Self.parse(request: "bl=1000,dl=900,bl=2000")
        #expect(same.bufferLength == 2000 && same.pairs.map(\.key) == ["bl", "dl"])
        #expect(same.findings == [CMCDFinding(key: "bl", carriage: .header(.request), problem: .repeatedKey(firstIn: .header(.request)))])
        let across = try #require(CMCDData.parse(target: "/a.ts?CMCD=bl%3D500", headers: Self.headers("CMCD-Request", "bl=700")))
        #expect(across.bufferLength == 500 && across.pair("bl")?.carriage == .query)
        #expect(across.findings == [CMCDFinding(key: "bl", carriage: .query, problem: .repeatedKey(firstIn: .header(.request)))])
        let twice = try #require(CMCDData.parse(target: "/a.ts?CMCD=bl%3D500&x=1&CMCD=bl%3D600", headers: []))
        #expect(twice.bufferLength == 500 && Self.problems(twice) == [.repeatedQueryArgument])
    }

    @Test func nonASCIICostsOnlyItsMember() throws {
        let header = Self.parse(request: "cid=\"caf\u{e9}\",bl=300")
        #expect(header.cid == nil && header.bufferLength == 300)
        #expect(header.findings == [CMCDFinding(key: "cid", carriage: .header(.request), problem: .nonASCII(offset: 8))])
        let query = try #require(CMCDData.parse(target: "/a?CMCD=sid%3D%22%C3%A9%22%2Cbl%3D300", headers: []))
        #expect(query.sid == nil && query.bufferLength == 300 && Self.problems(query) == [.nonASCII(offset: 5)])
        let token = Self.parse(request: "ot=v\u{fc},dl=100")
        #expect(token.ot == nil && token.dl == 100 && Self.problems(token).first == .nonASCII(offset: 4))
        let control = Self.parse(request: "sid=\"a\u{01}b\",dl=100")
        #expect(control.sid == nil && control.dl == 100 && Self.problems(control) == [.unexpected(character: 1, offset: 6, expected: .stringCharacter)])
    }

    @Test func anUnterminatedStringTakesTheRestOfTheCarriage() {
        let cmcd = Self.parse(request: "dl=300,sid=\"abc,bl=100")
        #expect(cmcd.dl == 300 && cmcd.bl == nil && cmcd.sid == nil)
        #expect(cmcd.findings == [CMCDFinding(key: "sid", carriage: .header(.request), problem: .unterminatedString(offset: 11))])
        let escape = Self.parse(request: #"cid="a\nb",dl=300"#)
        #expect(escape.cid == nil && escape.dl == 300 && Self.problems(escape) == [.badEscape(offset: 6)])
    }

    @Test func outOfRangeAndWronglyTypedValuesAreFindingsAndKeptRaw() throws {
        let cmcd = try #require(CMCDData.parse(target: nil, headers: [
            ("CMCD-Request", "bl=-200,dl=\"900\",mtp=12345678901234567,su=1"),
            ("CMCD-Object", "br=(3000;v -1;a),d=4000.5,ot=x"),
            ("CMCD-Session", "pr=-1.0,sid=abc,sf=h,st=\"v\""),
            ("CMCD-Status", "rtp=-100,bs=?0"),
        ]))
        #expect(cmcd.bl == nil && cmcd.dl == nil && cmcd.mtp == nil && !cmcd.su && cmcd.br == nil && cmcd.d == nil && cmcd.ot == nil)
        #expect(cmcd.pr == nil && cmcd.sid == nil && cmcd.sf == .hls && cmcd.st == nil && cmcd.rtp == nil && !cmcd.bs)
        #expect(cmcd.pair("bl")?.value == .item(CMCDItem(.integer(-200))))
        let byKey = Dictionary(grouping: cmcd.findings, by: { $0.key ?? "" }).mapValues { $0.map(\.problem) }
        #expect(byKey["bl"] == [.negative("-200")])
        #expect(byKey["dl"] == [.wrongType(expected: .integer, found: .string)])
        #expect(byKey["mtp"] == [.numberTooLong(offset: 21)])
        #expect(byKey["su"] == [.wrongType(expected: .boolean, found: .integer)])
        #expect(byKey["br"] == [.negative("-1")])
        #expect(byKey["d"] == [.wrongType(expected: .integer, found: .decimal)])
        #expect(byKey["ot"] == [.unknownToken("x")])
        #expect(byKey["pr"] == [.negative("-1.0")])
        #expect(byKey["sid"] == [.wrongType(expected: .string(maxLength: 64), found: .token)])
        #expect(byKey["st"] == [.wrongType(expected: .token(["v", "l", "ll"]), found: .string)])
        #expect(byKey["rtp"] == [.negative("-100")])
        #expect(byKey["bs"] == [.falseBoolean])
        // Every finding has words that name the key and the carriage.
        for finding in cmcd.findings where finding.key != nil {
            #expect(finding.description.hasPrefix(finding.key! + " in the CMCD-"), "\(finding)")
        }
        #expect(cmcd.findings.first { $0.key == "ot" }?.description == "ot in the CMCD-Object header: ot=x is not one of m, a, v, av, i, c, tt, k, o")
    }

    @Test func tooLongStringsAreKeptAndNoted() {
        let sid = String(repeating: "s", count: 65)
        let cmcd = CMCDData.parse(target: nil, headers: Self.headers("CMCD-Session", "sid=\"\(sid)\",cid=\"\(String(repeating: "c", count: 65))\""))!
        #expect(cmcd.sid == sid)
        #expect(Self.problems(cmcd) == [.stringTooLong(length: 65, limit: 64), .stringTooLong(length: 65, limit: 64)])
        let v2 = CMCDData.parse(target: nil, headers: Self.headers("CMCD-Session", "cid=\"\(String(repeating: "c", count: 65))\",v=2"))!
        #expect(v2.findings.isEmpty)
    }

    @Test func versionRulesAreFindings() {
        let v2KeyWithoutV = CMCDData.parse(target: nil, headers: Self.headers("CMCD-Request", "bl=(100),sta=p"))!
        #expect(v2KeyWithoutV.sta == .playing)
        #expect(v2KeyWithoutV.findings == [
            CMCDFinding(key: "bl", carriage: .header(.request), problem: .shapeOfOtherVersion(version: 1)),
            CMCDFinding(key: "sta", carriage: .header(.request), problem: .keyNotInVersion(1)),
        ])
        #expect(v2KeyWithoutV.findings[1].description == "sta in the CMCD-Request header: sta is a version 2 key, but the request says version 1 (no v=2)")
        let nrrInV2 = CMCDData.parse(target: "/a?CMCD=" + Encode.uriComponent("bl=100,nrr=\"0-99\",v=2"), headers: [])!
        #expect(Self.problems(nrrInV2) == [.shapeOfOtherVersion(version: 2), .keyNotInVersion(2)])
        #expect(nrrInV2.bufferLength == 100)
        let v3 = CMCDData.parse(target: "/a?CMCD=v%3D3", headers: [])!
        #expect(v3.version == 3 && Self.problems(v3) == [.unsupportedVersion(3)])
        let wrongHeader = CMCDData.parse(target: nil, headers: Self.headers("CMCD-Session", "bl=100,sid=\"a\""))!
        #expect(wrongHeader.bufferLength == 100 && Self.problems(wrongHeader) == [.wrongHeader(expected: .request)])
    }

    @Test func syntaxErrorsCostTheirMemberOnly() {
        let cases: [(String, [CMCDProblem], [String])] = [
            ("bl=100 dl=200,su", [.unexpected(character: 0x64, offset: 7, expected: .comma)], ["su"]),
            ("ot=v?,su", [.unexpected(character: 0x3F, offset: 4, expected: .comma)], ["su"]),
            ("bl=100,", [.trailingComma], ["bl"]),
            ("bl=100,,su", [.unexpected(character: 0x2C, offset: 7, expected: .key)], ["bl", "su"]),
            ("=5,su", [.unexpected(character: 0x3D, offset: 0, expected: .key)], ["su"]),
            ("bl=(100,su", [.unexpected(character: 0x2C, offset: 7, expected: .listSeparator)], ["su"]),
            ("bl=(100", [.unexpectedEnd(offset: 7, expected: .listSeparator)], []),
            ("bl=,su", [.unexpected(character: 0x2C, offset: 3, expected: .value)], ["su"]),
            ("pr=1.,su", [.unexpected(character: 0x2C, offset: 5, expected: .digit)], ["su"]),
            ("bs=?2,su", [.unexpected(character: 0x32, offset: 4, expected: .booleanDigit)], ["su"]),
            ("x-b=:abc,su", [.unexpected(character: 0x2C, offset: 8, expected: .byteSequence)], ["su"]),
            ("bl=1;=2,su", [.unexpected(character: 0x3D, offset: 5, expected: .key)], ["su"]),
            // Skipping a bad member skips whole strings: a comma inside one does not end the member.
            (#"x-a=?3 "a,bl=5,su",dl=100"#, [.unexpected(character: 0x33, offset: 5, expected: .booleanDigit)], ["dl"]),
        ]
        for (text, problems, keys) in cases {
            let cmcd = CMCDData.parse(target: nil, headers: Self.headers("CMCD-Request", text))!
            #expect(Self.problems(cmcd) == problems, "\(text)")
            #expect(cmcd.pairs.map(\.key) == keys, "\(text)")
        }
    }

    @Test func badPercentEncodingIsKeptAsWritten() {
        let cmcd = CMCDData.parse(target: "/a?CMCD=x-a%3D%22100%25%22%2Cx-b%3D%22%G1%22%2Cdl%3D%2", headers: [])!
        #expect(cmcd.pair("x-a")?.value == .item(CMCDItem(.string("100%"))))
        #expect(cmcd.pair("x-b")?.value == .item(CMCDItem(.string("%G1"))))
        #expect(Self.problems(cmcd) == [.badPercentEncoding(offset: 30), .unexpected(character: 0x25, offset: 24, expected: .value)])
    }

    @Test func findingsAreBounded() {
        let bad = (0..<500).map { _ in "bl=-1" }.joined(separator: ",")
        let cmcd = CMCDData.parse(target: nil, headers: Self.headers("CMCD-Request", bad))!
        #expect(cmcd.findings.count == 33)
        // 64 keys read (63 of them repeats), then the limit: 65 findings, 32 listed and one counting the rest.
        #expect(cmcd.findings.first?.problem == .tooManyKeys(limit: 64))
        #expect(cmcd.findings.last?.problem == .moreFindings(count: 33))
        let garbage = String(repeating: "\u{7f},", count: 2000)
        let noisy = CMCDData.parse(target: nil, headers: Self.headers("CMCD-Request", garbage))!
        #expect(noisy.findings.count == 33 && noisy.pairs.isEmpty)
    }

    @Test func uppercaseKeysAreReadAndNoted() {
        let cmcd = CMCDData.parse(target: nil, headers: Self.headers("CMCD-Request", "com.example-myKey=5,BL=100"))!
        #expect(cmcd.customPairs.map(\.key) == ["com.example-myKey", "BL"])
        #expect(Self.problems(cmcd) == [.uppercaseKey, .uppercaseKey, .unknownKey])
    }
}
