import Chaos
import BundleFormat
import Foundation
import JSON

/// Writes the imported scenario: ids that say what each rule reproduces, descriptions naming the
/// HAR entries, and the rule file's JSON (validated by `RuleDecoder`, like `hlschaos validate`).
enum HARScenarioWriter {
    /// "har-" and the HAR's file name without extension, in letters, digits, "-" and "_".
    static func name(forHAR path: String) -> String {
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        var slug = ""
        for character in stem.lowercased() {
            if character.isASCII, character.isLetter || character.isNumber || character == "_" { slug.append(character) }
            else if slug.last != "-" { slug.append("-") }
        }
        slug = slug.trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return "har-" + (slug.isEmpty ? "import" : String(slug.prefix(60)))
    }

    // MARK: - Ids and descriptions

    static func name(_ specs: inout [HARRuleSpec], catalog: HARPlaylistCatalog) {
        var used: [String: Int] = [:]
        for index in specs.indices {
            var id = baseID(specs[index], catalog: catalog)
            if let count = used[id] {
                used[id] = count + 1
                id += "-\(count + 1)"
            } else {
                used[id] = 1
            }
            specs[index].id = id
            specs[index].description = description(specs[index], catalog: catalog)
        }
    }

    private static func kindWord(_ spec: HARRuleSpec) -> String {
        if spec.anyPlaylist { return "playlist" }
        switch spec.kind {
        case .segment?: return "seg"
        case .sessionData?: return "sessiondata"
        case let kind?: return kind.rawValue
        case nil: return "any"
        }
    }

    private static func slug(_ text: String) -> String {
        var out = ""
        for character in text.lowercased() {
            if character.isLetter || character.isNumber { out.append(character) } else if out.last != "-" { out.append("-") }
        }
        return out.trimmingCharacters(in: CharacterSet(charactersIn: "-"))
    }

    static func baseID(_ spec: HARRuleSpec, catalog: HARPlaylistCatalog) -> String {
        var parts = [kindWord(spec)]
        if let variant = spec.variant { parts.append("v\(variant)") }
        if let rendition = spec.rendition {
            parts.append(slug(rendition.type) + "-" + slug(rendition.language ?? rendition.name))
        }
        if spec.backup { parts.append("backup") }
        if let msn = spec.msn { parts.append(msn.count == 1 ? "msn\(msn.lowerBound)" : "msn\(msn.lowerBound)-\(msn.upperBound)") }
        if let part = spec.part { parts.append("part\(part)") }
        if let window = spec.window { parts.append("at\(durationText(window.after))") }
        parts.append(spec.fault.idWords)
        switch spec.requests {
        case nil: break
        case let (from, to?)? where from == 1 && to == 1: parts.append("first-request")
        case let (from, to?)? where from == 1: parts.append("first-\(to)-requests")
        case let (from, to?)? where from == to: parts.append("request-\(from)")
        case let (from, to?)?: parts.append("requests-\(from)-\(to)")
        case let (from, nil)?: parts.append("from-request-\(from)")
        }
        return parts.filter { !$0.isEmpty }.joined(separator: "-")
    }

    static func ownerWords(_ spec: HARRuleSpec, catalog: HARPlaylistCatalog) -> String? {
        if let variant = spec.variant {
            var words = "variant \(variant)"
            if let info = catalog.variants[variant] {
                words += " (\(info.resolution ?? "\(info.bandwidth / 1000) kbit/s"))"
            }
            return spec.backup ? "the backup copy of \(words)" : words
        }
        if let rendition = spec.rendition {
            let language = rendition.language.map { ", \($0)" } ?? ""
            return "the \(rendition.type) rendition \"\(rendition.name)\"\(language)"
        }
        return nil
    }

    static func targetWords(_ spec: HARRuleSpec, catalog: HARPlaylistCatalog) -> String {
        let owner = ownerWords(spec, catalog: catalog)
        if let window = spec.window {
            let what: String
            switch spec.kind {
            case _ where spec.anyPlaylist: what = "playlist requests"
            case .segment?: what = "segment requests"
            case .media?: what = "media playlist requests"
            case .master?: what = "master playlist requests"
            case .`init`?: what = "init section requests"
            case .key?: what = "key requests"
            case let kind?: what = "\(kind.rawValue) requests"
            case nil: what = "requests"
            }
            return "\(what) from \(durationText(window.after)) to \(durationText(window.after + window.duration)) into the session"
        }
        switch spec.kind {
        case .segment?:
            let msn = spec.msn.map { $0.count == 1 ? "segment MSN \($0.lowerBound)" : "segments MSN \($0.lowerBound)-\($0.upperBound)" } ?? "segments"
            return owner.map { "\(msn) of \($0)" } ?? msn
        case .part?:
            let which = spec.part.map { part in spec.msn.map { "part \(part) of segment MSN \($0.lowerBound)" } ?? "part \(part)" } ?? "parts"
            return owner.map { "\(which) of \($0)" } ?? which
        case .media?: return owner.map { "the media playlist of \($0)" } ?? "the media playlist"
        case .master?: return "the master playlist"
        case .`init`?: return owner.map { "the init section of \($0)" } ?? "the init section"
        case .key?: return owner.map { "the key of \($0)" } ?? "the key"
        case .sessionData?: return "session data"
        case .steering?: return "the steering manifest"
        case nil: return "requests"
        }
    }

    static func whenWords(_ spec: HARRuleSpec) -> String {
        let count = spec.entries.count
        let then = spec.thenStatus.map { ", then \($0) (the retry succeeded)" } ?? ""
        switch spec.requests {
        case nil:
            return count == 1 ? "its one request in the HAR" : "every request (\(count) in the HAR)"
        case let (from, to?)? where from == 1 && to == 1: return "the first request\(then)"
        case let (from, to?)? where from == 1: return "the first \(to) requests\(then)"
        case let (from, to?)? where from == to: return "request \(from)\(then)"
        case let (from, to?)?: return "requests \(from) to \(to)\(then)"
        case let (from, nil)?: return "request \(from) and every later one"
        }
    }

    static func entryList(_ indexes: [Int]) -> String {
        let shown = indexes.prefix(6).enumerated().map { $0.offset == 0 ? "log.entries[\($0.element)]" : "[\($0.element)]" }
        let more = indexes.count > 6 ? " … (\(indexes.count) in all)" : ""
        return shown.joined(separator: ", ") + more
    }

    static func description(_ spec: HARRuleSpec, catalog: HARPlaylistCatalog) -> String {
        var text = "\(targetWords(spec, catalog: catalog)): \(spec.fault.words) on \(whenWords(spec)). HAR: \(entryList(spec.entries.sorted()))"
        if let then = spec.thenEntry, let status = spec.thenStatus { text += " then [\(then)] (\(status))" }
        if let pinning = spec.pinning { text += "; pinned by \(pinning.rawValue)" }
        if spec.window != nil { text += "; the HAR does not say which resource, so by session time" }
        text += "."
        if let approximation = spec.approximation { text += " Approximated: \(approximation)." }
        return text
    }

    // MARK: - JSON

    static func durationText(_ seconds: Double) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000)s" }
        if milliseconds < 1000 { return "\(milliseconds)ms" }
        var text = String(format: "%.3f", Double(milliseconds) / 1000)
        while text.hasSuffix("0") { text.removeLast() }
        return text + "s"
    }

    static func rateText(_ bitsPerSecond: Int) -> String {
        bitsPerSecond % 1000 == 0 ? "\(bitsPerSecond / 1000)kbps" : "\(bitsPerSecond)bps"
    }

    static func match(_ spec: HARRuleSpec) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if spec.anyPlaylist {
            members.append(("kind", .array([.string("master"), .string("media")])))
        } else if let kind = spec.kind {
            members.append(("kind", .string(kind.rawValue)))
        }
        if let variant = spec.variant { members.append(("variant", .object([("index", .int(variant))]))) }
        if let rendition = spec.rendition, let fields = renditionSelector(rendition) {
            members.append(("rendition", .object(fields)))
        }
        if spec.backup { members.append(("copy", .string("backup"))) }
        if let msn = spec.msn {
            members.append(("msn", msn.count == 1 ? .int(msn.lowerBound) : .object([("from", .int(msn.lowerBound)), ("to", .int(msn.upperBound))])))
        }
        if let part = spec.part { members.append(("part", .int(part))) }
        if let requests = spec.requests {
            let (from, to) = (requests.from, requests.to)
            if let to, to == from {
                members.append(("requests", .int(from)))
            } else {
                var fields: [(String, JSONValue)] = [("from", .int(from))]
                if let to { fields.append(("to", .int(to))) }
                members.append(("requests", .object(fields)))
            }
        }
        if let window = spec.window {
            if window.after > 0 { members.append(("after", .string(durationText(window.after)))) }
            members.append(("for", .string(durationText(window.duration))))
        }
        return .object(members)
    }

    static let renditionTypes: Set<String> = ["AUDIO", "SUBTITLES", "CLOSED-CAPTIONS", "VIDEO"]

    /// The rendition as `match.rendition` names it (type, language, name: each only when the rule
    /// schema can hold it); nil when nothing usable is left.
    static func renditionSelector(_ rendition: RenditionFacts) -> [(String, JSONValue)]? {
        func usable(_ text: String?) -> String? {
            guard let text, !text.trimmingCharacters(in: .whitespaces).isEmpty,
                  !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return nil }
            return text
        }
        var fields: [(String, JSONValue)] = []
        if renditionTypes.contains(rendition.type.uppercased()) { fields.append(("type", .string(rendition.type.uppercased()))) }
        if let language = usable(rendition.language) { fields.append(("language", .string(language))) }
        if let name = usable(rendition.name) { fields.append(("name", .string(name))) }
        return fields.contains(where: { $0.0 != "type" }) ? fields : nil
    }

    static func action(_ fault: HARFault) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if let delay = fault.delay { members.append(("delay", .string(durationText(delay)))) }
        switch fault.wire {
        case .status(let code, let headers)?:
            members.append(("status", .int(code)))
            if !headers.isEmpty { members.append(("headers", .object(headers.map { ($0.name, .string($0.value)) }))) }
        case .resetBeforeHeaders?:
            members.append(("reset", .string("before-headers")))
        case .resetAfter(let bytes)?:
            members.append(("reset", .object([("afterBytes", .int(bytes))])))
        case .hang(let seconds)?:
            members.append(("hang", seconds.map { .string("\($0)s") } ?? .bool(true)))
        case .truncate(let bytes)?:
            members.append(("truncate", .object([bytes.map { ("afterBytes", .int($0)) } ?? ("fraction", .double(0.5))])))
        case .stall(let bytes, let seconds)?:
            members.append(("stall", .object([("afterBytes", .int(bytes)), ("for", .string("\(seconds)s"))])))
        case .throttle(let bits)?:
            members.append(("throttle", .string(rateText(bits))))
        case nil:
            break
        }
        return .object(members)
    }

    /// The rule file, two-space indented, each rule's `match` and `action` on one line.
    static func text(name: String, description: String, specs: [HARRuleSpec]) -> String {
        var out = "{\n"
        out += "  \"name\": \(JSONString.quoted(name)),\n"
        out += "  \"description\": \(JSONString.quoted(description)),\n"
        out += "  \"rules\": [\n"
        for (index, spec) in specs.enumerated() {
            out += "    {\n"
            out += "      \"id\": \(JSONString.quoted(spec.id)),\n"
            out += "      \"description\": \(JSONString.quoted(spec.description)),\n"
            out += "      \"match\": \(match(spec).serialized(.oneLine)),\n"
            out += "      \"action\": \(action(spec.fault).serialized(.oneLine))\n"
            out += index == specs.count - 1 ? "    }\n" : "    },\n"
        }
        out += "  ]\n}\n"
        return out
    }
}

extension HARRuleSpec {
    /// The rule's `action` as the scenario file writes it.
    public var actionJSON: String { HARScenarioWriter.action(fault).serialized(.oneLine) }
}
