import HTTPTypes
import Testing
@testable import Chaos

/// `HTTPFieldSyntax.isToken` answers without building a name; swift-http-types' `HTTPField.Name`
/// is the rule it must keep to.
@Suite struct HTTPFieldSyntaxTests {
    @Test func everyByteIsATokenCharacterExactlyWhenTheLibrarySaysSo() {
        for byte in UInt8.min...UInt8.max {
            let name = String(decoding: [UInt8(ascii: "x"), byte, UInt8(ascii: "y")], as: UTF8.self)
            #expect(HTTPFieldSyntax.isToken(name) == (HTTPField.Name(name) != nil), "byte \(byte)")
        }
    }

    /// The byte forms (an origin's header as curl handed it over) give the string forms' answers.
    @Test func bytesAndStringsGetTheSameAnswer() {
        for byte in UInt8.min...UInt8.max {
            for bytes in [[byte], [UInt8(ascii: "x"), byte, UInt8(ascii: "y")], [byte, UInt8(ascii: "y")]] {
                let text = String(decoding: bytes, as: UTF8.self)
                bytes.withUnsafeBytes { raw in
                    #expect(HTTPFieldSyntax.isToken(bytes: raw) == HTTPFieldSyntax.isToken(text), "bytes \(bytes)")
                    #expect(HTTPFieldSyntax.isFieldValue(bytes: raw) == HTTPFieldSyntax.isFieldValue(text), "bytes \(bytes)")
                }
            }
        }
        #expect(Array("caf\u{e9}".utf8).withUnsafeBytes(HTTPFieldSyntax.isFieldValue(bytes:)))
        #expect(![UInt8]().withUnsafeBytes(HTTPFieldSyntax.isToken(bytes:)))
    }

    /// The symbols an error message lists are the ones `isToken` accepts, no more and no fewer.
    @Test func theListedSymbolsAreTheAcceptedOnes() {
        let accepted = (UInt8(0x21)...UInt8(0x7E)).filter { byte in
            let scalar = Unicode.Scalar(byte)
            return !scalar.properties.isAlphabetic && !("0"..."9").contains(scalar) && HTTPFieldSyntax.isToken(String(scalar))
        }
        #expect(String(decoding: accepted, as: UTF8.self) == HTTPFieldSyntax.tokenSymbols)
    }

    @Test(arguments: [
        "Content-Type", "x-hlschaos-fault", "ETag", "!#$%&'*+-.^_`|~", "a", "Accept-Ranges",
        "", "Content Type", "Content-Type:", "Naïve", "tab\there", "(comment)", "\u{0}",
    ])
    func namesAgreeWithTheLibrary(name: String) {
        #expect(HTTPFieldSyntax.isToken(name) == (HTTPField.Name(name) != nil))
    }

    @Test func aNameFromASubstringIsReadAsItsOwnBytes() {
        let line = "Content-Type: text/plain"
        let name = String(line.prefix { $0 != ":" })
        #expect(HTTPFieldSyntax.isToken(name))
        #expect(!HTTPFieldSyntax.isToken(String(line.prefix(13))))
    }
}
