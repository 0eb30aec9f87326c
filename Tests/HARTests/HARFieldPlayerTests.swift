import Foundation
import Testing
import TestSupport
@testable import HAR

/// import-har keeps what the field device's player said through CMCD: its buffer, its stalls.
@Suite struct HARFieldPlayerTests {
    @Test func theFieldPlayersCMCDIsReadFromQueryAndHeadersAndWritten() throws {
        try withTemporaryFolder("har") { folder in
            var har = HARFixture()
            let origin = HARFixture.origin
            har.add("\(origin)/master.m3u8", at: 0.5, body: HARFixture.master)
            har.add("\(origin)/v2/index.m3u8?CMCD=ot%3Dm%2Csid%3D%22f1%22", at: 0.6, body: HARFixture.media(first: 100))
            har.add("\(origin)/v2/seg100.ts?CMCD=bl%3D4000%2Cot%3Dv%2Csid%3D%22f1%22%2Csu", at: 1.0, size: 150_000)
            har.add("\(origin)/v2/seg101.ts?CMCD=bl%3D800%2Cot%3Dv%2Csid%3D%22f1%22", at: 3.0, size: 150_000)
            // A stall since the last request (bs), said in a header this time.
            har.add("\(origin)/v2/seg102.ts", at: 7.0, size: 150_000,
                    requestHeaders: [("CMCD-Status", "bs"), ("CMCD-Request", "bl=0"), ("CMCD-Session", "sid=\"f1\"")])
            har.add("\(origin)/v2/seg103.ts", at: 9.0, size: 150_000)
            let imported = try HARImport.analyze(HARReader.read(har.json, file: "field.har"), file: "field.har")
            let player = try #require(imported.fieldPlayer)
            #expect(player.requestsWithCMCD == 4)
            #expect(player.lowestBuffer?.bufferLength == 0)
            #expect(player.stalls.count == 1 && player.stalls.first?.source == "bs", "\(player.stalls)")
            #expect(player.sessionIDs == ["f1"])

            let out = folder.path("out")
            let written = try imported.write(to: out)
            let path = try #require(written.playerPath)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            #expect(json["requestsWithCMCD"] as? Int == 4)
            #expect(imported.report(written).contains("Player (CMCD): \(path): 4 requests carried CMCD; lowest buffer 0.0 s"), "\(imported.report(written))")

            // A HAR without CMCD: nothing written, nothing said.
            var plain = HARFixture()
            plain.add("\(origin)/v2/seg100.ts", at: 1.0, size: 150_000)
            #expect(try HARImport.analyze(HARReader.read(plain.json, file: "p.har"), file: "p.har").fieldPlayer == nil)
        }
    }

    /// `hlschaos replay DIR` or `DIR/bundle` of an import: the bundle, and the field player beside it.
    @Test func aReplayedImportBringsItsFieldPlayer() throws {
        var har = HARFixture()
        let origin = HARFixture.origin
        har.add("\(origin)/master.m3u8", at: 0.5, body: HARFixture.master)
        har.add("\(origin)/v2/seg100.ts?CMCD=bl%3D0%2Cot%3Dv%2Csid%3D%22f1%22%2Csu", at: 1.0, size: 150_000)
        har.add("\(origin)/v2/seg101.ts?CMCD=bl%3D1800%2Cot%3Dv%2Csid%3D%22f1%22", at: 3.0, size: 150_000)
        har.add("\(origin)/v2/seg102.ts?CMCD=bl%3D600%2Cbs%2Cot%3Dv%2Csid%3D%22f1%22", at: 7.5, size: 150_000)
        let imported = try HARImport.analyze(HARReader.read(har.json, file: "field.har"), file: "field.har")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("hlschaos-har-replay-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        try imported.write(to: out)
        let bundle = (out as NSString).appendingPathComponent("bundle"), player = (out as NSString).appendingPathComponent("player.json")

        for given in [out, bundle, bundle + "/"] {
            let target = HARReplayTarget.resolve(given)
            #expect(target.bundle == (given == out ? bundle : given) && target.problem == nil, "\(given)")
            #expect(target.fieldPlayer?.requestsWithCMCD == 3 && target.fieldPlayer?.stalls.count == 1, "\(given)")
            #expect(target.fieldPlayerPath.map { URL(fileURLWithPath: $0).standardizedFileURL.path } == URL(fileURLWithPath: player).standardizedFileURL.path)
        }
        #expect(HARReplayTarget.resolve(out).words
            == "Field player (CMCD, \(player)): 3 requests carried CMCD; lowest buffer 0.0 s (entry #2); 1 stall said (bs); started in 2.0 s. "
            + "Each session's report (GET /api/sessions/{id}/report) shows it beside the replaying player's.")

        // A bundle that is not an import's has none; a player.json that is not a timeline is named and left out.
        let other = HARReplayTarget.resolve(out + "/nothing-here")
        #expect(other.bundle == out + "/nothing-here" && other.fieldPlayer == nil && other.words == nil)
        try Data(#"{"points": 3}"#.utf8).write(to: URL(fileURLWithPath: player))
        let broken = HARReplayTarget.resolve(out)
        #expect(broken.fieldPlayer == nil && broken.bundle == bundle)
        #expect(broken.words?.hasPrefix("Field player: \(player): is not a field player timeline (what import-har writes as player.json): ") == true, "\(broken.words ?? "")")
        #expect(broken.words?.hasSuffix("; replaying without it.") == true)
        // No player.json at all: nothing said.
        try FileManager.default.removeItem(atPath: player)
        #expect(HARReplayTarget.resolve(out).words == nil && HARReplayTarget.resolve(bundle).fieldPlayer == nil)
    }
}
