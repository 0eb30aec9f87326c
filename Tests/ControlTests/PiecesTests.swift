import Foundation
import Testing
@testable import Control

/// Pure pieces: listen addresses, JSON bodies, cursors, the token comparison.
@Suite struct ControlPiecesTests {
    @Test func listenAddressesAreParsed() throws {
        #expect(try ControlConfiguration.parseListen("127.0.0.1:8081").get() == ("127.0.0.1", 8081))
        #expect(try ControlConfiguration.parseListen("0.0.0.0:0").get() == ("0.0.0.0", 0))
        #expect(try ControlConfiguration.parseListen("localhost:9000").get() == ("localhost", 9000))
        #expect(try ControlConfiguration.parseListen("[::1]:8081").get() == ("::1", 8081))
        for bad in ["8081", "127.0.0.1", "127.0.0.1:", ":8081", "127.0.0.1:65536", "127.0.0.1:-1", "::1:8081", "[::1]8081", "a b:1"] {
            if case .success = ControlConfiguration.parseListen(bad) { Issue.record("\(bad) was accepted") }
        }
        #expect("\(ControlConfiguration.parseListen("8081"))".contains("expected HOST:PORT"))
    }

    @Test func jsonBodiesKeepEachTopLevelMembersBytes() throws {
        let text = #"{"id": "tv1", "scenario": {"name": "x", "seed": 18446744073709551615, "n": 1.50}, "s": "a\u00e9\n\"b\"", "k": [1, {"a": null}]}"#
        let body = try JSONBody(Array(text.utf8))
        #expect(body.kind == .object)
        #expect(body.members.map(\.key) == ["id", "scenario", "s", "k"])
        #expect(body.member("id")?.string == "tv1")
        let scenario = try #require(body.member("scenario"))
        #expect(scenario.kind == .object)
        #expect(String(decoding: body.bytes(of: scenario), as: UTF8.self) == #"{"name": "x", "seed": 18446744073709551615, "n": 1.50}"#)
        #expect(body.member("s")?.string == "a\u{e9}\n\"b\"")
        #expect(body.member("k")?.kind == .array)
        #expect(try JSONBody(Array("  [1, 2]  ".utf8)).kind == .array)
        #expect(try JSONBody(Array("\u{FEFF}{}".utf8)).members.isEmpty)
    }

    @Test func malformedJSONIsReportedWithLineAndColumn() {
        let cases: [(String, String)] = [
            (#"{"a": 1,}"#, "invalid JSON at line 1, column 9: expected a key in double quotes"),
            ("{\n  \"a\" 1}", "invalid JSON at line 2, column 7: expected ':' after the key"),
            ("[1 2]", "invalid JSON at line 1, column 4: expected ',' or ']'"),
            (#"{"a": tru}"#, "invalid JSON at line 1, column 7: unexpected character 't'"),
            (#"{"a": 01}"#, "invalid JSON at line 1, column 8: expected ',' or '}'"),
            (#""\x""#, "invalid JSON at line 1, column 3: invalid escape \\'x'"),
            ("{} {}", "invalid JSON at line 1, column 4: unexpected text after the end of the document"),
            ("", "invalid JSON at line 1, column 1: unexpected end of the document"),
            (String(repeating: "[", count: 201) + String(repeating: "]", count: 201),
             "invalid JSON at line 1, column 201: nesting deeper than 200 levels"),
        ]
        for (text, message) in cases {
            do {
                _ = try JSONBody(Array(text.utf8))
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.description == message, "\(text)")
            }
        }
    }

    @Test func cursorsAreNonNegativeIntegers() throws {
        #expect(try ControlAPI.cursor(nil, name: "since") == nil)
        #expect(try ControlAPI.cursor("0", name: "since") == 0)
        #expect(try ControlAPI.cursor("18446744073709551615", name: "since") == UInt64.max)
        for bad in ["", "-1", "+1", "1.0", "1e3", "abc", "18446744073709551616", " 1"] {
            #expect(throws: APIError.self, "\(bad)") { try ControlAPI.cursor(bad, name: "since") }
        }
    }

    @Test func theTokenComparisonNeedsEveryByte() {
        #expect(BearerAuthMiddleware.equal(Array("abc".utf8), Array("abc".utf8)))
        #expect(!BearerAuthMiddleware.equal(Array("abd".utf8), Array("abc".utf8)))
        #expect(!BearerAuthMiddleware.equal(Array("ab".utf8), Array("abc".utf8)))
        #expect(!BearerAuthMiddleware.equal(Array("abcd".utf8), Array("abc".utf8)))
        #expect(!BearerAuthMiddleware.equal([], Array("abc".utf8)))
    }

    @Test func theOpenAPIDocumentIsJSONWithEveryRoute() throws {
        for token in [true, false] {
            let text = OpenAPIDocument.text(version: "1.2.3 \"x\"", bearerToken: token)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect((object["info"] as? [String: Any])?["version"] as? String == "1.2.3 \"x\"")
            let paths = try #require(object["paths"] as? [String: [String: Any]])
            #expect(Set(paths.keys) == Set(ControlAPI.routes.map(\.path)))
            for route in ControlAPI.routes {
                #expect(Set(paths[route.path]?.keys.filter { $0 != "parameters" } ?? []) == Set(route.methods.map { $0.rawValue.lowercased() }))
            }
            #expect((object["security"] as? [Any])?.isEmpty == !token)
        }
    }
}
