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

/// How `PlayerCatalog.drivers` names custom players.
@Suite struct CustomPlayerNamesTests {
    func names(_ specs: [String]) throws -> [String] {
        try PlayerCatalog.drivers(specs).map(\.name)
    }

    func problem(_ specs: [String]) -> PlayerCatalog.UnknownPlayer? {
        do {
            _ = try PlayerCatalog.drivers(specs)
            return nil
        } catch {
            return error as? PlayerCatalog.UnknownPlayer
        }
    }

    @Test func aCommandIsNamedAfterItsProgram() throws {
        #expect(try names(["streamlink --stdout {url} best", "/usr/local/bin/yt-dlp -o - {url}", "hlsjs"])
            == ["streamlink", "yt-dlp", "hlsjs"])
        #expect(try names(["'/opt/my player/run me' {url}", "./.hidden {url}", "./a=b {url}"]) == ["run-me", "hidden", "a-b"])
        let drivers = try PlayerCatalog.drivers(["streamlink {url} best", "ffmpeg"])
        #expect(drivers.map(\.expectationName) == ["command", "ffmpeg"], "expectations name every custom player \"command\"")
    }

    @Test func theSameProgramTwiceOrABuiltInNameGetsANumber() throws {
        #expect(try names(["streamlink {url} best", "streamlink {url} worst", "streamlink {url} 360p"])
            == ["streamlink", "streamlink-2", "streamlink-3"])
        #expect(try names(["ffmpeg", "ffmpeg -i {url} -f null -"]) == ["ffmpeg", "ffmpeg-2"])
        #expect(try names(["command {url}"]) == ["command-2"], "\"command\" is what expectations call every custom player")
    }

    @Test func aNameCanBeGiven() throws {
        let drivers = try PlayerCatalog.drivers(["best=streamlink {url} best", "worst=streamlink {url} worst"])
        #expect(drivers.map(\.name) == ["best", "worst"])
        let command = try #require(drivers.first as? CommandDriver)
        #expect(command.template.words == ["streamlink", "{url}", "best"])
        #expect(command.expectationName == "command")
        // A given name wins over one taken from a program, wherever it comes in the list.
        #expect(try names(["streamlink {url}", "streamlink=streamlink --twitch-low-latency {url}"]) == ["streamlink-2", "streamlink"])
    }

    @Test func aGivenNameThatCannotTellPlayersApartIsRefused() {
        #expect(problem(["ffmpeg=my-player {url}"])?.description.contains(#""ffmpeg" is the built-in player's name"#) == true)
        #expect(problem(["command=my-player {url}"])?.description.contains("what expectations call every custom player") == true)
        let twice = problem(["a=my-player {url}", "a=other {url}"])
        #expect(twice?.spec == "a=other {url}")
        #expect(twice?.description.contains(#"two players are named "a""#) == true)
        let noURL = problem(["best=streamlink"])
        #expect(noURL?.description.contains("a command must contain {url}") == true, "\(String(describing: noURL))")
        #expect(problem(["quicktime"])?.description.contains("no player of that name (players: ffmpeg,") == true)
    }
}
