import Chaos
import Foundation
import PlayerReports
import Players
import Testing

/// The one list of player names (`PlayerNames`) against the places that name players: the
/// catalog's drivers, the rule decoder's keywords and rules/schema.json.
@Suite struct PlayerNamesTests {
    static let schema = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("rules/schema.json")

    @Test func theCatalogTheDecoderAndTheSchemaNameTheSamePlayers() throws {
        #expect(PlayerCatalog.names == PlayerNames.drivers)
        #expect(RuleKeys.playerNames == PlayerNames.drivers + [PlayerNames.custom])
        let data = try Data(contentsOf: Self.schema)
        let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let defs = try #require(schema["$defs"] as? [String: Any])
        let playerName = try #require(defs["playerName"] as? [String: Any])
        #expect(playerName["enum"] as? [String] == RuleKeys.playerNames, "rules/schema.json $defs.playerName.enum")
    }
}
