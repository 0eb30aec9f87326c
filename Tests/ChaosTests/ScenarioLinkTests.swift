import Foundation
import JSON
import Link
import Testing
@testable import Chaos

/// A scenario's `"link"`: read by the Link module's reader with the rule file's name in every
/// problem, a scenario of a link alone, and the layer order that picks a session's link.
@Suite struct ScenarioLinkTests {
    static func decode(_ json: String, traces: [String: String] = [:]) throws(RuleFileError) -> Scenario {
        try RuleDecoder.decode(Array(json.utf8), file: "t.json") { traces[$0].map { Array($0.utf8) } }
    }

    @Test func aScenarioMayGiveALinkAloneOrBesideItsRules() throws {
        let alone = try Self.decode(#"{"name": "slow", "link": {"profile": "slow-3g"}}"#)
        #expect(alone.rules.isEmpty)
        #expect(alone.link?.profile == "slow-3g")
        let both = try Self.decode(#"""
            {"name": "both", "link": {"rate": "2Mbps", "latency": {"base": "80ms"}},
             "rules": [{"id": "a", "match": {"kind": "segment"}, "action": {"status": 503}}]}
            """#)
        #expect(both.rules.count == 1)
        #expect(both.link?.latency.base == .milliseconds(80))
    }

    @Test func aTraceIsReadThroughTheLoaderTheFileWasGiven() throws {
        let scenario = try Self.decode(#"{"name": "t", "link": {"trace": {"file": "traces/a.csv"}}}"#, traces: ["traces/a.csv": "0,1000\n1,2000\n"])
        guard case .trace(_, let name)? = scenario.link?.capacity else { Issue.record("no trace: \(String(describing: scenario.link))"); return }
        #expect(name == "traces/a.csv")
        #expect(throws: RuleFileError.self) { try Self.decode(#"{"name": "t", "link": {"trace": {"file": "traces/missing.csv"}}}"#) }
    }

    @Test func aBadLinkIsEveryProblemWithTheFileAndPath() {
        do {
            _ = try Self.decode(#"{"name": "x", "link": {"rate": "-2Mbps", "outages": [{"at": "1s"}], "tick": "1s"}}"#)
            Issue.record("accepted")
        } catch {
            #expect(error.problems.map(\.description) == [
                #"t.json: $.link.rate: a rate cannot be negative: "-2Mbps""#,
                #"t.json: $.link.outages[0]: missing required key "for" (how long it stays down, such as "10s")"#,
                #"t.json: $.link.tick: a tick must be between 1ms and 50ms (the link's shaping granularity), got "1s""#,
            ])
        }
    }

    @Test func theFirstLayerWithALinkGivesIt() throws {
        let files = try Self.decode(#"{"name": "files", "rules": [{"id": "a", "match": {}, "action": {"delay": "1s"}}]}"#)
        let every = try Self.decode(#"{"name": "every", "link": {"rate": "1Mbps"}}"#)
        let preset = try Self.decode(#"{"name": "preset", "link": {"rate": "3Mbps"}}"#)
        let engine = RuleEngine(layers: [.init([files]), .init([preset])])
        #expect(engine.link?.from == #"scenario "preset""#)
        // The control API's scenarios go before the URL's presets, so their link wins.
        let inserted = engine.inserting([.init([every])], beforeLayer: 1)
        #expect(inserted.link?.from == #"scenario "every""#)
        #expect(RuleEngine(layers: [.init([files])]).link == nil)
    }

    @Test func theSchemaNamesTheKeysTheLinkReaderTakes() throws {
        let schema = try SchemaSyncTests.schema()
        guard case .object(let root) = schema, case .object(let defs)? = root.first(where: { $0.key == "$defs" })?.value,
              case .object(let link)? = defs.first(where: { $0.key == "link" })?.value,
              case .object(let properties)? = link.first(where: { $0.key == "properties" })?.value else {
            Issue.record("no $defs.link.properties in rules/schema.json")
            return
        }
        #expect(properties.map(\.key) == LinkSpecReader.keys)
    }
}
