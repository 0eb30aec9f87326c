/// The spellings of values in the house's files (rule files, link specs, the API's bodies):
/// durations ("500ms", "2s", "1.5s", "1m", "1h"), rates ("800kbps", "2Mbps", "64KB/s") and
/// percentages ("70%", "72.5 %"), each read with a message that says what is wrong and what would
/// fix it. Spaces and tabs around a value are ignored; inside it they are not ("2 s" is refused).
public enum ValueText {
    /// Plain decimal without sign, exponent or spaces: "2", "1.5", "0.25".
    public static func decimal(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.first != ".", text.last != ".",
              text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              text.filter({ $0 == "." }).count <= 1 else { return nil }
        return Double(text)
    }

    /// "70%", "72.5%", "5 %": a plain decimal and a percent sign, in percent (70 for "70%"); no
    /// sign and no upper bound (the caller knows its range).
    public static func percentage(_ text: Substring) -> Double? {
        let trimmed = text.trimmingSpaces
        guard trimmed.hasSuffix("%") else { return nil }
        return decimal(trimmed.dropLast().trimmingSpaces)
    }

    /// The number and the unit's scale of "1.5s" or "800kbps": the first unit of `units` the text
    /// ends with decides ("5ms" is not "5m" + "s" when ms comes first), and a plain decimal must
    /// stand before it.
    static func numberAndUnit(_ text: Substring, _ units: [(suffix: String, scale: Double)]) -> (number: Double, scale: Double)? {
        guard let unit = units.first(where: { text.hasSuffix($0.suffix) }),
              let number = decimal(text.dropLast(unit.suffix.count)) else { return nil }
        return (number, unit.scale)
    }

    static func quoted(_ text: String) -> String { "\"\(text)\"" }
}

/// Why a value's text was refused: a sentence naming the value and what would fix it.
public struct TextError: Error, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

extension StringProtocol {
    /// Without spaces and tabs at either end, nor a trailing carriage return (a CRLF file's lines).
    public var trimmingSpaces: SubSequence {
        var text = self[...]
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return text
    }
}
