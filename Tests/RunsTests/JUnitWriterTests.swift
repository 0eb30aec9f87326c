import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Markup
import Testing
@testable import Runs

/// JUnit as CI systems read it: it parses, has one testcase per scenario × player, and a failure
/// carries the failing expectation, what was observed and the records.
@Suite struct JUnitWriterTests {
    /// The elements of a document with their attributes and text, in order.
    final class Elements: NSObject, XMLParserDelegate {
        var items: [(name: String, attributes: [String: String], text: String)] = []
        private var open: [Int] = []
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            items.append((name, attributes, ""))
            open.append(items.count - 1)
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let last = open.last { items[last].text += string }
        }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            open.removeLast()
        }
    }

    static func parse(_ xml: String) throws -> Elements {
        let parser = XMLParser(data: Data(xml.utf8))
        let elements = Elements()
        parser.delegate = elements
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.coderReadCorrupt) }
        return elements
    }

    @Test func oneTestcasePerScenarioAndPlayerWithTheEvidence() throws {
        let results = [CellFixtures.passed(), CellFixtures.failed(), CellFixtures.couldNotRun(), CellFixtures.passed("gap", player: "ffmpeg")]
        let xml = JUnitWriter.xml(results, seconds: 42, timestamp: CellFixtures.start)
        let elements = try Self.parse(xml)
        let suites = elements.items.filter { $0.name == "testsuite" }
        #expect(suites.map { $0.attributes["name"] } == ["status-503", "gap"])
        #expect(suites.first?.attributes["tests"] == "3")
        #expect(suites.first?.attributes["failures"] == "1")
        #expect(suites.first?.attributes["errors"] == "1")
        let cases = elements.items.filter { $0.name == "testcase" }
        #expect(cases.map { $0.attributes["name"] } == ["hlsjs", "gstreamer", "vlc", "ffmpeg"])
        #expect(cases.map { $0.attributes["classname"] } == ["hlschaos.status-503", "hlschaos.status-503", "hlschaos.status-503", "hlschaos.gap"])

        let failure = try #require(elements.items.first { $0.name == "failure" })
        #expect(failure.attributes["message"] == "retried the faulted resource at most 10 times: observed 61 retries of segment 8 of variant 2 (503 ×61) <&>")
        #expect(failure.text.contains("✗ [gstreamer] retried the faulted resource at most 10 times"))
        #expect(failure.text.contains("#7 "), "the records behind the failure: \(failure.text)")
        #expect(failure.text.contains("status-503/top-msn8-10-503"))
        #expect(failure.text.contains("evidence: evidence/status-503-gstreamer-1"))
        let error = try #require(elements.items.first { $0.name == "error" })
        #expect(error.attributes["message"]?.contains("apt-get install -y vlc-bin") == true)
        #expect(elements.items.first { $0.name == "testsuites" }?.attributes["tests"] == "4")
    }

    @Test func controlCharactersFromAPlayerLogStillParse() throws {
        #expect(Markup.escape("a\u{1}b\u{0}c<d>\"e\"&\n") == "a\u{FFFD}b\u{FFFD}c&lt;d&gt;&quot;e&quot;&amp;\n")
        var cell = CellFixtures.failed()
        cell.reactionWords = "weird \u{7} bell"
        _ = try Self.parse(JUnitWriter.xml([cell], seconds: 1, timestamp: CellFixtures.start))
    }
}
