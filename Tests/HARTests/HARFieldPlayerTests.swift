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
}
