import Addressing
import JSON
import SpecReading

extension TreeReader {
    mutating func match(_ value: JSONValue, _ path: String) -> Match? {
        guard let members = object(value, path, allowed: RuleKeys.match, elsewhere: [("action", RuleKeys.action)]) else {
            return nil
        }
        let before = problems.count
        var match = Match()
        func read<T>(_ key: String, _ reader: (inout TreeReader, JSONValue, String) -> T?) -> T? {
            guard let (value, keyPath) = members[key] else { return nil }
            return reader(&self, value, keyPath)
        }
        if let kinds = read("kind", { $0.kinds($1, $2) }) { match.kinds = kinds }
        match.variant = read("variant") { $0.variantSelector($1, $2) }
        match.rendition = read("rendition") { $0.renditionSelector($1, $2) }
        match.msn = read("msn") { $0.numberSet($1, $2, "msn") }
        match.part = read("part") { $0.numberSet($1, $2, "part") }
        if match.part != nil, let kinds = match.kinds, !kinds.contains(.part), let (_, partPath) = members["part"] {
            report(partPath, "\"part\" selects LL-HLS parts, but match.kind does not allow \"part\" (add it, or drop \"part\")")
        }
        match.index = read("index") { $0.numberSet($1, $2, "index") }
        match.time = read("time") { $0.timeWindow($1, $2) }
        match.requests = read("requests") { $0.requestRange($1, $2) }
        match.after = read("after") { $0.duration($1, $2) }
        match.duration = read("for") { $0.duration($1, $2) }
        match.probability = read("probability") { reader, value, path -> Double? in
            guard case .number(let number, let text) = value else {
                reader.report(path, "expected a number between 0 and 1, got \(value.typeName)")
                return nil
            }
            guard (0...1).contains(number) else {
                reader.report(path, "probability must be between 0 and 1, got \(text)")
                return nil
            }
            return number
        }
        if let seed = read("seed", { $0.seed($1, $2) }) {
            match.seed = seed
            if members["probability"] == nil, let (_, seedPath) = members["seed"] {
                report(seedPath, "\"seed\" has no effect without \"probability\"")
            }
        }
        if let copy = read("copy", { $0.keyword($1, $2, "copy", in: RuleKeys.copies) }) { match.copy = Copy(rawValue: copy) }
        match.pathways = read("pathway") { $0.pathways($1, $2) }
        if match.pathways != nil, let kinds = match.kinds, kinds.isDisjoint(with: ResourceKind.ofPathways), let (_, pathwayPath) = members["pathway"] {
            report(pathwayPath, "\"pathway\" selects the resources of a content-steering pathway's variants and renditions (media, segment, part, init, key), but match.kind allows none of them")
        }
        match.session = read("session") { $0.string($1, $2) }
        match.methods = read("method") { reader, value, path in
            reader.oneOrMany(value, path) { reader, value, path in reader.string(value, path)?.uppercased() }.map(Set.init)
        }
        match.range = read("range") { $0.bool($1, $2) }
        match.blocking = read("blocking") { $0.bool($1, $2) }
        if match.blocking == true, let kinds = match.kinds, !kinds.contains(.media), let (_, blockingPath) = members["blocking"] {
            report(blockingPath, "only media playlist requests are blocking reloads, but match.kind does not allow \"media\"")
        }
        match.cmcd = read("cmcd") { $0.cmcdCondition($1, $2) }
        return problems.count == before ? match : nil
    }

    mutating func pathways(_ value: JSONValue, _ path: String) -> Set<String>? {
        oneOrMany(value, path) { $0.pathwayID($1, $2) }.map(Set.init)
    }

    mutating func pathwayID(_ value: JSONValue, _ path: String) -> String? {
        guard let id = string(value, path) else { return nil }
        guard ResourceTag.isValidPathway(id) else {
            report(path, "\(id.debugDescription) is no PATHWAY-ID: up to 64 letters, digits, \"-\", \".\" and \"_\" (rfc8216bis §4.4.6.2)")
            return nil
        }
        return id
    }

    mutating func kinds(_ value: JSONValue, _ path: String) -> Set<ResourceKind>? {
        guard let names = oneOrMany(value, path, { $0.keyword($1, $2, "kind", in: RuleKeys.kinds) }) else { return nil }
        if names.contains("any") { return nil }
        return Set(names.compactMap(ResourceKind.init(rawValue:)))
    }

    mutating func variantSelector(_ value: JSONValue, _ path: String) -> VariantSelector? {
        if case .string = value {
            guard let word = keyword(value, path, "variant selector", in: RuleKeys.variantKeywords) else { return nil }
            return word == "highest" ? .highest : .lowest
        }
        guard let members = object(value, path, allowed: RuleKeys.variantSelector) else { return nil }
        guard !members.isEmpty else {
            report(path, "empty variant selector (give index, bandwidth, resolution or name, or use \"highest\"/\"lowest\")")
            return nil
        }
        let before = problems.count
        var indexes: [Int]?
        if let (value, keyPath) = members["index"] {
            indexes = oneOrMany(value, keyPath) { $0.integer($1, $2, "index", in: 0...Int.max) }
        }
        var bandwidth: ClosedRange<Int>?
        if let (value, keyPath) = members["bandwidth"], let bounds = object(value, keyPath, allowed: RuleKeys.bandwidth) {
            let low = bounds["min"].flatMap { integer($0.0, $0.1, "min", in: 0...Int.max) }
            let high = bounds["max"].flatMap { integer($0.0, $0.1, "max", in: 0...Int.max) }
            if bounds.isEmpty {
                report(keyPath, "give \"min\", \"max\" or both")
            } else if let low, let high, low > high {
                report(keyPath, "min (\(low)) is greater than max (\(high))")
            } else {
                bandwidth = (low ?? 0)...(high ?? Int.max)
            }
        }
        var resolution: String?
        if let (value, keyPath) = members["resolution"], let text = string(value, keyPath) {
            let parts = text.split(separator: "x", omittingEmptySubsequences: false)
            if parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && Int($0) != nil }) {
                resolution = text
            } else {
                report(keyPath, "invalid resolution \"\(text)\" (use WIDTHxHEIGHT, e.g. \"640x360\")")
            }
        }
        let name = members["name"].flatMap { string($0.0, $0.1) }
        guard problems.count == before else { return nil }
        return .attributes(index: indexes, bandwidth: bandwidth, resolution: resolution, name: name)
    }

    mutating func renditionSelector(_ value: JSONValue, _ path: String) -> RenditionSelector? {
        guard let members = object(value, path, allowed: RuleKeys.renditionSelector) else { return nil }
        guard !members.isEmpty else {
            report(path, "empty rendition selector (give type, language or name)")
            return nil
        }
        let before = problems.count
        var selector = RenditionSelector()
        if let (value, keyPath) = members["type"] {
            selector.type = keyword(value, keyPath, "rendition type", in: RuleKeys.renditionTypes)
        }
        selector.language = members["language"].flatMap { string($0.0, $0.1) }
        selector.name = members["name"].flatMap { string($0.0, $0.1) }
        return problems.count == before ? selector : nil
    }

    mutating func numberSet(_ value: JSONValue, _ path: String, _ name: String) -> NumberSet? {
        if case .array = value {
            return oneOrMany(value, path) { $0.singleNumberSet($1, $2, name) }.map { $0.count == 1 ? $0[0] : .anyOf($0) }
        }
        return singleNumberSet(value, path, name)
    }

    private mutating func singleNumberSet(_ value: JSONValue, _ path: String, _ name: String) -> NumberSet? {
        switch value {
        case .number:
            return integer(value, path, name, in: 0...Int.max).map(NumberSet.exactly)
        case .object:
            guard let members = object(value, path, allowed: RuleKeys.numberSet) else { return nil }
            if let (every, everyPath) = members["every"] {
                if members["from"] != nil || members["to"] != nil {
                    report(path, "\"every\" cannot be combined with \"from\"/\"to\"")
                    return nil
                }
                return integer(every, everyPath, "every", in: 1...Int.max).map(NumberSet.every)
            }
            guard !members.isEmpty else {
                report(path, "give \"from\"/\"to\" or \"every\"")
                return nil
            }
            let before = problems.count
            let from = members["from"].flatMap { integer($0.0, $0.1, "from", in: 0...Int.max) }
            let to = members["to"].flatMap { integer($0.0, $0.1, "to", in: 0...Int.max) }
            guard problems.count == before else { return nil }
            if let from, let to, from > to {
                report(path, "from (\(from)) is greater than to (\(to))")
                return nil
            }
            return .range(from: from, to: to)
        default:
            report(path, "expected \(name) as an integer, {\"from\", \"to\"}, {\"every\"} or a list, got \(value.typeName)")
            return nil
        }
    }

    mutating func timeWindow(_ value: JSONValue, _ path: String) -> TimeWindow? {
        guard let members = object(value, path, allowed: RuleKeys.window) else { return nil }
        guard !members.isEmpty else {
            report(path, "give \"from\", \"to\" or both")
            return nil
        }
        let before = problems.count
        let window = TimeWindow(from: members["from"].flatMap { duration($0.0, $0.1) },
                                to: members["to"].flatMap { duration($0.0, $0.1) })
        guard problems.count == before else { return nil }
        if let from = window.from, let to = window.to, from >= to {
            report(path, "from (\(ValueText.format(from))) must be before to (\(ValueText.format(to)))")
            return nil
        }
        return window
    }

    mutating func requestRange(_ value: JSONValue, _ path: String) -> RequestRange? {
        if case .number = value {
            return integer(value, path, "requests", in: 1...Int.max).map { RequestRange(from: $0, to: $0) }
        }
        guard let members = object(value, path, allowed: RuleKeys.window) else { return nil }
        guard !members.isEmpty else {
            report(path, "give \"from\", \"to\" or both")
            return nil
        }
        let before = problems.count
        let from = members["from"].flatMap { integer($0.0, $0.1, "from", in: 1...Int.max) }
        let to = members["to"].flatMap { integer($0.0, $0.1, "to", in: 1...Int.max) }
        guard problems.count == before else { return nil }
        if let from, let to, from > to {
            report(path, "from (\(from)) is greater than to (\(to))")
            return nil
        }
        return RequestRange(from: from ?? 1, to: to)
    }
}
