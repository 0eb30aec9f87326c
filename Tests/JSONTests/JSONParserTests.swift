import JSON
import Testing

/// The parser keeps what rule files, the configuration file, HAR import and the control API need.
@Suite struct JSONParserTests {
    func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test func membersKeepTheirOrderAndDuplicates() throws {
        let value = try parse(#"{"b": 1, "a": {"x": null}, "b": [true, false], "": "e"}"#)
        guard case .object(let members) = value else { Issue.record("not an object: \(value)"); return }
        #expect(members.map(\.key) == ["b", "a", "b", ""])
        #expect(value.member("b") == .number(1, text: "1"), "the first of two members of one key")
        #expect(value.member("a")?.member("x") == .null)
        #expect(members[2].value == .array([.bool(true), .bool(false)]))
        #expect(value.member("missing") == nil)
        #expect(JSONValue.string("s").member("a") == nil)
    }

    @Test func numbersKeepTheirSpelling() throws {
        let value = try parse(#"[3, 3.0, -0, 1e3, 18446744073709551615, 2.50]"#)
        #expect(value == .array([
            .number(3, text: "3"), .number(3, text: "3.0"), .number(0, text: "-0"), .number(1000, text: "1e3"),
            .number(Double(UInt64.max), text: "18446744073709551615"), .number(2.5, text: "2.50"),
        ]))
        #expect(try parse("7").typeName == "an integer")
        #expect(try parse("7.0").typeName == "a number")
        #expect(try parse("1E2").typeName == "a number")
    }

    @Test func stringsAreUnescaped() throws {
        #expect(try parse(#""a\u00e9\n\"b\"\/\\\t\ud83c\udfac""#) == .string("aé\n\"b\"/\\\t🎬"))
        #expect(try parse("\u{FEFF}{}") == .object([JSONMember]()), "a byte order mark is skipped")
        #expect(try parse("  [1, 2]  ") == .array([.int(1), .int(2)]))
    }

    @Test func malformedJSONIsReportedWithLineAndColumn() {
        let cases: [(String, String)] = [
            (#"{"a": 1,}"#, "invalid JSON at line 1, column 9: expected a key in double quotes"),
            ("{\n  \"a\" 1}", "invalid JSON at line 2, column 7: expected ':' after the key \"a\""),
            ("[1 2]", "invalid JSON at line 1, column 4: expected ',' or ']' in a list"),
            (#"{"a": tru}"#, "invalid JSON at line 1, column 7: unexpected character 't'"),
            (#"{"a": 01}"#, "invalid JSON at line 1, column 8: expected ',' or '}' in an object"),
            (#""\x""#, "invalid JSON at line 1, column 3: invalid escape \\x"),
            ("\"a\u{01}\"", "invalid JSON at line 1, column 3: control character in a string (escape it)"),
            (#""\ud800""#, #"invalid JSON at line 1, column 8: unpaired UTF-16 surrogate in a \u escape"#),
            ("[1.]", "invalid JSON at line 1, column 4: invalid number: digits expected after '.'"),
            ("\u{01}", "invalid JSON at line 1, column 1: unexpected character 0x01"),
            ("{} {}", "invalid JSON at line 1, column 4: unexpected text after the end of the document"),
            ("", "invalid JSON at line 1, column 1: unexpected end of the document"),
            ("{\"é\": [", "invalid JSON at line 1, column 8: unexpected end of the document"),
            (String(repeating: "[", count: 201) + String(repeating: "]", count: 201),
             "invalid JSON at line 1, column 201: nesting deeper than 200 levels"),
        ]
        for (text, message) in cases {
            #expect(throws: JSONSyntaxError.self, "\(text)") { try parse(text) }
            do {
                _ = try parse(text)
            } catch {
                #expect(error.description == message, "\(text)")
            }
        }
    }

    @Test func twoHundredLevelsAreAllowed() throws {
        let text = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(try parse(text).serialized() == text)
    }
}
