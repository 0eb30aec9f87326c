import SpecReading

/// A rate relative to the ladder the session fetched, kept as written until the variants' BANDWIDTH
/// values are known: "variant 2", "variant 2 + 10%", "lowest variant - 30%", "below the lowest
/// variant" (half the lowest BANDWIDTH), "above the highest variant" (one and a half times the
/// highest). `variant N` is the N-th EXT-X-STREAM-INF of the master, 0-based, as in a rule's
/// `match.variant.index`; lowest and highest are by BANDWIDTH.
public struct LadderRate: Sendable, Hashable, CustomStringConvertible {
    public enum Anchor: Sendable, Hashable {
        case variant(Int)
        case lowest
        case highest
    }

    public var anchor: Anchor
    /// The change from the anchor's BANDWIDTH in percent: +10 is 110 %, -50 is half.
    public var percent: Double
    /// How it was written, for messages.
    public var text: String

    public init(anchor: Anchor, percent: Double, text: String) {
        self.anchor = anchor
        self.percent = percent
        self.text = text
    }

    public var description: String { text }

    static let forms = "\"variant 2\", \"variant 2 + 10%\", \"lowest variant - 20%\", \"highest variant\", \"below the lowest variant\", \"above the highest variant\""

    /// Whether `text` is meant as a ladder-relative rate (so that its problems are reported as such).
    static func looksRelative(_ text: String) -> Bool {
        text.lowercased().contains("variant")
    }

    static func parse(_ text: String) -> Result<LadderRate, TextError> {
        let words = text.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        let failure = TextError("invalid ladder-relative rate \"\(text)\" (write it as one of \(forms))")
        switch words {
        case ["below", "the", "lowest", "variant"], ["below", "lowest", "variant"]:
            return .success(LadderRate(anchor: .lowest, percent: -50, text: text))
        case ["above", "the", "highest", "variant"], ["above", "highest", "variant"]:
            return .success(LadderRate(anchor: .highest, percent: 50, text: text))
        default: break
        }
        var rest = words[...]
        if rest.first == "the" { rest = rest.dropFirst() }
        let anchor: Anchor
        switch (rest.first, rest.dropFirst().first) {
        case ("variant", let number?):
            guard let index = Int(number), index >= 0, number.allSatisfy(\.isNumber) else {
                return .failure(TextError("invalid variant number \"\(number)\" in \"\(text)\" (variants are counted from 0 in the master's order)"))
            }
            anchor = .variant(index)
        case ("lowest", "variant"): anchor = .lowest
        case ("highest", "variant"): anchor = .highest
        default: return .failure(failure)
        }
        rest = rest.dropFirst(2)
        guard !rest.isEmpty else { return .success(LadderRate(anchor: anchor, percent: 0, text: text)) }
        // "+ 10%", "+10%", "- 5 %": a sign, then a percentage.
        let change = rest.joined(separator: " ")
        guard let sign = change.first, sign == "+" || sign == "-", let value = ValueText.percentage(change.dropFirst()) else {
            return .failure(failure)
        }
        let percent = sign == "+" ? value : -value
        guard percent > -100 else {
            return .failure(TextError("\"\(text)\" takes away all of the variant's bandwidth (a change must stay above -100%)"))
        }
        return .success(LadderRate(anchor: anchor, percent: percent, text: text))
    }

    /// The rate for a ladder given as the variants' BANDWIDTH values in bits per second, in the
    /// master's order.
    func resolve(ladder bandwidths: [Int]) -> Result<LinkRate, TextError> {
        guard !bandwidths.isEmpty else {
            return .failure(TextError("\"\(text)\" is relative to the ladder, but no master playlist with variants has been fetched yet (fetch the master first, or give an absolute rate such as \"2Mbps\")"))
        }
        let base: Int
        switch anchor {
        case .variant(let index):
            guard index < bandwidths.count else {
                return .failure(TextError("\"\(text)\" names variant \(index), but the master has \(bandwidths.count) variant\(bandwidths.count == 1 ? "" : "s") (0–\(bandwidths.count - 1))"))
            }
            base = bandwidths[index]
        case .lowest: base = bandwidths.min()!
        case .highest: base = bandwidths.max()!
        }
        let bits = Double(base) * (100 + percent) / 100
        guard bits >= 1 else {
            return .failure(TextError("\"\(text)\" comes to \(Int(bits)) bit/s (the variant's BANDWIDTH is \(base)); a link needs a rate above zero"))
        }
        return LinkRate.checked(bits: bits, spelled: "\"\(text)\" (\(Int64(bits)) bit/s)")
    }
}

/// A rate as a spec writes it: absolute, or relative to the ladder until the ladder is known.
public enum RateSpec: Sendable, Hashable, CustomStringConvertible {
    case absolute(LinkRate)
    case ladder(LadderRate)

    public var description: String {
        switch self {
        case .absolute(let rate): rate.description
        case .ladder(let relative): relative.text
        }
    }

    var needsLadder: Bool { if case .ladder = self { true } else { false } }

    func resolve(ladder: [Int]?) -> Result<LinkRate, TextError> {
        switch self {
        case .absolute(let rate): .success(rate)
        case .ladder(let relative): relative.resolve(ladder: ladder ?? [])
        }
    }
}
