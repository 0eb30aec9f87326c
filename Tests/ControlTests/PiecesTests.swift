import Foundation
import JSON
import Testing
@testable import Control

/// Pure pieces: listen addresses, inline scenarios, cursors, the token comparison, the OpenAPI document.
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

    @Test func theOpenAPIDocumentIsServedWithTheProxysVersionTokenAndPresets() throws {
        for token in [true, false] {
            let text = OpenAPIDocument.text(version: "1.2.3 \"x\"\n", bearerToken: token, presets: ["gap", "status-503"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect((object["info"] as? [String: Any])?["version"] as? String == "1.2.3 \"x\"\n")
            #expect((object["security"] as? [Any])?.isEmpty == !token)
            let schemas = (object["components"] as? [String: Any])?["schemas"] as? [String: Any]
            #expect((schemas?["PresetName"] as? [String: Any])?["enum"] as? [String] == ["gap", "status-503"])
        }
        let withoutPresets = OpenAPIDocument.text(version: "1", presets: [])
        #expect(!withoutPresets.contains(#""enum": ["gap""#))
        // Everything else is openapi.json as written, in its order.
        var template = OpenAPIDocument.template
        template.set(.string("1"), at: ["info", "version"])
        #expect(withoutPresets == template.serialized(.pretty(indent: 2)))
        #expect(withoutPresets.hasPrefix("{\n  \"openapi\": \"3.1.0\",\n  \"info\": {"))
    }

    @Test func theMethodsOfADocumentedPathAreTheOnesA405Names() {
        #expect(ErrorMiddleware.allowedMethods(path: "/api/sessions/tv1/recording") == [.get, .put, .delete])
        #expect(ErrorMiddleware.allowedMethods(path: "/api/sessions") == [.get, .post])
        #expect(ErrorMiddleware.allowedMethods(path: "/api/sessions/") == nil)
        #expect(ErrorMiddleware.allowedMethods(path: "/nothing") == nil)
    }
}
