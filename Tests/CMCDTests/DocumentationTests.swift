import CMCD
import Foundation
import Testing

/// docs/cmcd.md's key table says what the registry says: every key, its unit, its header, its versions.
@Suite struct DocumentationTests {
    @Test func theKeyTableMatchesTheRegistry() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/cmcd.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        var rows: [String: [String]] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            rows[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells
        }
        for key in CMCDKey.allCases where !key.isReportKey {
            let row = try #require(rows[key.rawValue], "docs/cmcd.md has no row for \(key.rawValue)")
            #expect(row[3] == key.unit.rawValue, "\(key.rawValue): unit")
            #expect(row[4].hasPrefix(key.header(version: 1).rawValue) && row[4].contains(key.header(version: 2).rawValue), "\(key.rawValue): header")
            let versions = switch key.versions { case .both: "1, 2"; case .onlyV1: "1"; case .sinceV2: "2" }
            #expect(row[5] == versions, "\(key.rawValue): versions")
        }
        for key in CMCDKey.allCases where key.isReportKey {
            #expect(text.contains("`\(key.rawValue)`"), "docs/cmcd.md names the report key \(key.rawValue)")
        }
    }
}
