@testable import Chaos
import JSON
import Testing

@Suite struct SteeringDamageTests {
    static let manifest = Array(#"{"VERSION":1,"TTL":300,"RELOAD-URI":"next.json?s=1","PATHWAY-PRIORITY":["a","b"],"X-CUSTOM":true}"#.utf8)

    @Test func givenFieldsAreReplacedInPlaceAndTheRestKept() throws {
        let damaged = SteeringDamage(ttl: 1, priority: ["b"]).applied(to: Self.manifest)
        #expect(String(decoding: damaged, as: UTF8.self)
            == #"{"VERSION":1,"TTL":1,"RELOAD-URI":"next.json?s=1","PATHWAY-PRIORITY":["b"],"X-CUSTOM":true}"#)
    }

    @Test func missingFieldsAreAddedAndDuplicatesDropped() throws {
        let manifest = Array(#"{"VERSION":1,"TTL":5,"TTL":6,"PATHWAY-PRIORITY":["a"]}"#.utf8)
        let damaged = SteeringDamage(ttl: 0, reloadURI: "gone.json").applied(to: manifest)
        #expect(String(decoding: damaged, as: UTF8.self) == #"{"VERSION":1,"TTL":0,"PATHWAY-PRIORITY":["a"],"RELOAD-URI":"gone.json"}"#)
    }

    @Test func malformedCutsTheManifestSoNoParserReadsIt() {
        let cut = SteeringDamage(malformed: true).applied(to: Self.manifest)
        #expect(cut.count < Self.manifest.count)
        #expect((try? JSONValue.parse(cut)) == nil)
        #expect(Array(cut.prefix(10)) == Array(Self.manifest.prefix(10)))
    }

    @Test func aBodyThatIsNoJSONObjectKeepsItsBytes() {
        let text = Array("<html>steering is down</html>".utf8)
        #expect(SteeringDamage(ttl: 1).applied(to: text) == text)
        #expect(SteeringDamage(ttl: 1).applied(to: Array("[1]".utf8)) == Array("[1]".utf8))
    }

    @Test func theRuleDecoderReadsEveryField() throws {
        let decoded = try rule(#"{"kind": "steering"}"#, #"{"steering": {"ttl": 2, "priority": "cdn-b", "reloadURI": "x.json", "malformed": true}}"#)
        #expect(decoded.action.playlist == [.steering(SteeringDamage(ttl: 2, priority: ["cdn-b"], reloadURI: "x.json", malformed: true))])
    }
}
