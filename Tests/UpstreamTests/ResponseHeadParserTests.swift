import Testing
@testable import Upstream

@Suite struct ResponseHeadParserTests {
    private func feed(_ parser: inout ResponseHeadParser, _ line: String) -> ResponseHeadParser.Event {
        Array(line.utf8).withUnsafeBytes { parser.consume($0) }
    }

    @Test func interimResponseIsReplacedByTheFinalOne() {
        var parser = ResponseHeadParser()
        #expect(feed(&parser, "HTTP/1.1 100 Continue\r\n") == .none)
        #expect(feed(&parser, "\r\n") == .endOfBlock(status: 100))
        #expect(feed(&parser, "HTTP/1.1 200 OK\r\n") == .none)
        #expect(feed(&parser, "Content-Type: video/mp2t\r\n") == .none)
        #expect(feed(&parser, "X-Folded: a\r\n") == .none)
        #expect(feed(&parser, "  b\r\n") == .none)
        #expect(feed(&parser, "\r\n") == .endOfBlock(status: 200))
        #expect(parser.status == 200)
        #expect(parser.httpVersion == "1.1")
        #expect(parser.headers.map(\.name) == ["Content-Type", "X-Folded"])
        #expect(parser.header("content-type") == "video/mp2t")
        #expect(parser.header("x-folded") == "a b")
    }

    /// The fields as bytes are the fields as strings; a name is found whatever its case.
    @Test func fieldsReadAsBytesOrStrings() {
        var parser = ResponseHeadParser()
        for line in ["HTTP/1.1 200 OK\r\n", "Content-Type:video/mp2t\r\n", "X-Caf\u{e9}:  caf\u{e9}\t \r\n", "X-Empty:\r\n", "content-length: 12\r\n"] {
            _ = feed(&parser, line)
        }
        #expect(feed(&parser, "\r\n") == .endOfBlock(status: 200))
        let headers = parser.headers
        #expect(headers.map { "\($0.name)=\($0.value)" } == ["Content-Type=video/mp2t", "X-Caf\u{e9}=caf\u{e9}", "X-Empty=", "content-length=12"])
        var fromBytes: [String] = []
        headers.forEachField { name, value in
            fromBytes.append(String(decoding: name, as: UTF8.self) + "=" + String(decoding: value, as: UTF8.self))
        }
        #expect(fromBytes == headers.map { "\($0.name)=\($0.value)" })
        #expect(headers.first("CONTENT-LENGTH") == "12" && headers.first("x-caf\u{e9}") == "caf\u{e9}" && headers.first("content") == nil)
        let decoded = headers.removingAll(named: ["Content-Length", "x-empty"])
        #expect(decoded.map(\.name) == ["Content-Type", "X-Caf\u{e9}"])
    }

    @Test func http2StatusLine() {
        var parser = ResponseHeadParser()
        _ = feed(&parser, "HTTP/2 404 \r\n")
        _ = feed(&parser, "content-length: 0\r\n")
        #expect(feed(&parser, "\r\n") == .endOfBlock(status: 404))
        #expect(parser.httpVersion == "2")
        #expect(parser.header("Content-Length") == "0")
    }

    @Test func asciiCaseInsensitiveComparisons() {
        #expect("Content-Type".asciiCaseInsensitiveEquals("content-TYPE"))
        #expect(!"Content-Type".asciiCaseInsensitiveEquals("content-typ"))
        #expect(!"[x]".asciiCaseInsensitiveEquals("{x}"))  // 0x5B and 0x7B differ only in the case bit
        #expect("If-None-Match".asciiCaseInsensitiveHasPrefix("if-"))
        #expect(!"I".asciiCaseInsensitiveHasPrefix("if-"))
        #expect("Application/VND.Apple.MPEGURL".asciiCaseInsensitiveContains("mpegurl"))
    }
}
