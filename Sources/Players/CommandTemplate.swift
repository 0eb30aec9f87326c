import Foundation

/// A user's player command with `{url}` where the stream URL goes (`my-player --url {url}`),
/// split into words the way a shell splits simple commands: blanks separate words, `'…'` keeps
/// everything literally, `"…"` keeps blanks (with `\"` and `\\` inside), `\` outside quotes escapes
/// the next character. No expansion, pipes or redirections: the command is run directly, so the
/// URL needs no quoting whatever characters it holds.
public struct CommandTemplate: Sendable, Equatable {
    public static let placeholder = "{url}"

    public struct Problem: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    public let text: String
    public let words: [String]

    public init(_ text: String) throws {
        let words = try Self.split(text)
        guard !words.isEmpty else {
            throw Problem(description: "the player command is empty: write the command with {url} where the stream URL goes, e.g. \"my-player --url {url}\"")
        }
        guard words.contains(where: { $0.contains(Self.placeholder) }) else {
            throw Problem(description: "the player command \"\(text)\" has no {url}: write {url} where the stream URL goes, e.g. \"\(text) {url}\"")
        }
        self.text = text
        self.words = words
    }

    public var executable: String { words[0] }

    /// The words with every `{url}` replaced by `url`.
    public func command(url: String) -> [String] {
        words.map { $0.replacingOccurrences(of: Self.placeholder, with: url) }
    }

    static func split(_ text: String) throws -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var iterator = Array(text).makeIterator()
        while let character = iterator.next() {
            switch character {
            case " ", "\t", "\n":
                if inWord { words.append(word); word = ""; inWord = false }
            case "'":
                inWord = true
                while true {
                    guard let next = iterator.next() else { throw Problem(description: "unclosed ' in the player command \"\(text)\"") }
                    if next == "'" { break }
                    word.append(next)
                }
            case "\"":
                inWord = true
                while true {
                    guard let next = iterator.next() else { throw Problem(description: "unclosed \" in the player command \"\(text)\"") }
                    if next == "\"" { break }
                    if next == "\\" {
                        guard let escaped = iterator.next() else { throw Problem(description: "unclosed \" in the player command \"\(text)\"") }
                        if escaped != "\"" && escaped != "\\" && escaped != "$" && escaped != "`" { word.append("\\") }
                        word.append(escaped)
                    } else {
                        word.append(next)
                    }
                }
            case "\\":
                guard let escaped = iterator.next() else { throw Problem(description: "the player command \"\(text)\" ends with a lone \\") }
                inWord = true
                word.append(escaped)
            default:
                inWord = true
                word.append(character)
            }
        }
        if inWord { words.append(word) }
        return words
    }
}
