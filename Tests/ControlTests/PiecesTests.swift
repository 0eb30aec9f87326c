import Foundation
import JSON
import Testing
@testable import Control

/// Pure pieces: listen addresses, inline scenarios, cursors, the token comparison.
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

    @Test func anInlineScenarioReachesTheValidatorWithItsNumbersAsWritten() throws {
        let text = #"{"id": "tv1", "scenario": {"name": "x", "rules": [{"id": "c", "match": {"kind": "segment"}, "action": {"corrupt": {"bytes": 64, "seed": 18446744073709551615}}}]}}"#
        let body = try JSONValue.parse(Array(text.utf8))
        let scenario = try ScenarioInput.inline(try #require(body.member("scenario")))
        #expect(scenario.rules.first?.action.wire == .corrupt(bytes: 64, seed: .max))
        let decimal = try JSONValue.parse(Array(text.replacingOccurrences(of: "\"bytes\": 64", with: "\"bytes\": 64.0").utf8))
        #expect(throws: APIError.self) { try ScenarioInput.inline(try #require(decimal.member("scenario"))) }
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
