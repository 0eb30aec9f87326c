import BundleFormat
import HLS

/// Which variants' media `hlschaos record --variants` fetches: `all` (the default), or a
/// comma-separated list of variant indexes as `hlschaos inspect MASTER` numbers them (from 0, in
/// the master's order), `top` (the highest BANDWIDTH) and `bottom` (the lowest), e.g. `0,2` or
/// `top,bottom`. The renditions of the chosen variants' AUDIO, VIDEO and SUBTITLES groups come
/// along. Every playlist is recorded whatever the choice; it limits segments, keys and init
/// sections.
public enum VariantChoice: Sendable, Equatable, CustomStringConvertible {
    case all
    case some([Pick])

    public enum Pick: Sendable, Equatable, CustomStringConvertible {
        case index(Int)
        case top
        case bottom

        public var description: String {
            switch self {
            case .index(let index): String(index)
            case .top: "top"
            case .bottom: "bottom"
            }
        }
    }

    public static let syntax = "all, top, bottom, or variant indexes from 0 as `hlschaos inspect MASTER` lists them, comma-separated (e.g. 0,2 or top,bottom)"

    /// Parses the `--variants` text; the error says what is wrong and what is accepted.
    public static func parse(_ text: String) throws(RecordError) -> VariantChoice {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed == "all" { return .all }
        var picks: [Pick] = []
        for item in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            let word = item.trimmingCharacters(in: .whitespaces)
            switch word {
            case "top", "highest": picks.append(.top)
            case "bottom", "lowest": picks.append(.bottom)
            default:
                guard !word.isEmpty, word.allSatisfy({ $0.isASCII && $0.isNumber }), let index = Int(word) else {
                    let what = word.isEmpty ? "an empty item" : "\"\(word)\""
                    throw RecordError("--variants \(text): \(what) is not a variant; give \(syntax)")
                }
                picks.append(.index(index))
            }
        }
        return .some(picks)
    }

    /// The indexes (into `variants`) chosen; throws when an index is not in the master.
    public func select(from variants: [Variant]) throws(RecordError) -> Set<Int> {
        switch self {
        case .all:
            return Set(variants.indices)
        case .some(let picks):
            var chosen = Set<Int>()
            for pick in picks {
                switch pick {
                case .index(let index):
                    guard variants.indices.contains(index) else {
                        let range = variants.isEmpty ? "none" : "0–\(variants.count - 1)"
                        throw RecordError("--variants \(description): the master has \(variants.count) variant\(variants.count == 1 ? "" : "s") (indexes \(range)); `hlschaos inspect` on the master lists them")
                    }
                    chosen.insert(index)
                case .top:
                    if let best = variants.indices.max(by: { variants[$0].bandwidth < variants[$1].bandwidth }) { chosen.insert(best) }
                case .bottom:
                    if let least = variants.indices.min(by: { variants[$0].bandwidth < variants[$1].bandwidth }) { chosen.insert(least) }
                }
            }
            return chosen
        }
    }

    public var description: String {
        switch self {
        case .all: "all"
        case .some(let picks): picks.map(\.description).joined(separator: ",")
        }
    }
}

/// Why a recording could not start or go on, in words that say what to change.
public struct RecordError: Error, Sendable, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
