import Foundation
import JSON
import Testing

/// The writer behind the HAR export, `inspect --json`, imported scenarios and the OpenAPI document:
/// members in the order given, numbers as spelt, the same bytes for the same value.
@Suite struct JSONWriterTests {
    let sample = JSONValue.object([
        ("b", .int(1)),
        ("a", .array([.bool(true), .null, .string("x")])),
        ("empty", .object([JSONMember]())),
        ("none", .array([])),
        ("o", .object([("k", .double(0.25))])),
    ])

    @Test func layouts() {
        #expect(sample.serialized() == #"{"b":1,"a":[true,null,"x"],"empty":{},"none":[],"o":{"k":0.25}}"#)
        #expect(sample.serialized(.oneLine) == #"{"b": 1, "a": [true, null, "x"], "empty": {}, "none": [], "o": {"k": 0.25}}"#)
        #expect(sample.serialized(.pretty(indent: 2)) == """
            {
              "b": 1,
              "a": [
                true,
                null,
                "x"
              ],
              "empty": {},
              "none": [],
              "o": {
                "k": 0.25
              }
            }
            """)
    }

    @Test func stringsAreEscapedForJSONAndJavaScript() throws {
        let text = "q\"b\\s/\n\r\t\u{08}\u{0C}\u{01}\u{1F}\u{2028}\u{2029}é🎬"
        let json = JSONValue.array([.string(text)]).serialized()
        #expect(json == #"["q\"b\\s/\n\r\t\b\f\u0001\u001f\u2028\u2029é🎬"]"#)
        #expect(JSONString.quoted(text) == String(json.dropFirst().dropLast()))
        #expect(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String] == [text])
        #expect(try JSONValue.parse(Array(json.utf8)) == .array([.string(text)]))
    }

    @Test func numbers() {
        #expect(JSONValue.array([.double(.nan), .double(.infinity), .double(0.25), .double(12), .double(-3), .double(1e-5), .int(-1)])
            .serialized() == "[null,null,0.25,12,-3,1e-05,-1]")
        #expect(JSONValue.optional(nil as Int?) == .null)
        #expect(JSONValue.optional(5 as Int?).serialized() == "5")
        #expect(JSONValue.optional("s" as String?) == .string("s"))
        #expect(JSONValue.strings(["a", "b"]).serialized() == #"["a","b"]"#)
    }

    @Test func durationsAreWrittenAsMilliseconds() {
        let cases: [(Int64, String)] = [
            (1_234_500, "1234.5"), (-1_000, "-1"), (5, "0.005"), (0, "0"), (10_000_250, "10000.25"), (-1_250, "-1.25"),
        ]
        for (micros, text) in cases {
            #expect(JSONValue.milliseconds(micros).serialized() == text, "\(micros)")
        }
    }

    @Test func absentMembersCanBeLeftOut() {
        let value = JSONValue.object(omittingNil: [("a", .int(1)), ("b", nil), ("c", .null)])
        #expect(value.serialized() == #"{"a":1,"c":null}"#)
    }

    @Test func parsedTextIsWrittenBackAsItWas() throws {
        let text = #"{"seed":18446744073709551615,"n":1.50,"e":1E+2,"k":"v","k":[-0,{}]}"#
        #expect(try JSONValue.parse(Array(text.utf8)).serialized() == text)
    }

    @Test func membersAreSetByPath() {
        var value = sample
        value.set(.string("v"), at: ["o", "k"])
        value.set(.int(2), at: ["o", "new"])
        value.set(.array([]), at: ["b"])
        value.set(.bool(true), at: ["x", "y"])
        #expect(value.serialized() == #"{"b":[],"a":[true,null,"x"],"empty":{},"none":[],"o":{"k":"v","new":2},"x":{"y":true}}"#)
    }

    @Test func pathsNameKeysThatAreNotPlainNames() {
        #expect(JSONPath.child("$", "rules") == "$.rules")
        #expect(JSONPath.child("$.a", "_b2") == "$.a._b2")
        #expect(JSONPath.child("$", "a b") == #"$["a b"]"#)
        #expect(JSONPath.child("$", "2x") == #"$["2x"]"#)
        #expect(JSONPath.child("$", #"q"\"#) == #"$["q\"\\"]"#)
        #expect(JSONPath.child("$", "é") == #"$["é"]"#)
    }
}
