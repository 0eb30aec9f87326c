extension CMCDData {
    /// The CMCD of one request: its `CMCD` query argument (in `target`, origin or absolute form) and
    /// its CMCD headers; nil when it carried none. Never fails: what could not be read is a finding.
    /// Headers are read before the query; a key repeated in either is a finding and the later value
    /// is used (RFC 8941).
    public static func parse(
        target: String?, headers: [(name: String, value: String)], limits: CMCDLimits = .default
    ) -> CMCDData? {
        var findings = FindingList(limit: limits.maxFindings)
        var keyBudget = limits.maxKeys
        var data = CMCDData()
        var members: [(DictionaryParser.Member, CMCDCarriage)] = []

        for field in CMCDHeaderField.allCases {
            let values = headers.filter { CMCDHeaderField(headerName: $0.name) == field }.map(\.value)
            guard !values.isEmpty else { continue }
            let carriage = CMCDCarriage.header(field)
            data.carriages.insert(carriage)
            // Lines of one field combine with commas (RFC 9110 §5.3); the size is checked before joining.
            let length = values.reduce(values.count - 1) { $0 + $1.utf8.count }
            guard length <= limits.maxBytesPerCarriage else {
                findings.add(carriage, .carriageTooLong(length: length, limit: limits.maxBytesPerCarriage))
                continue
            }
            let bytes = Array(values.joined(separator: ",").utf8)
            for member in DictionaryParser.parse(bytes, carriage: carriage, keyBudget: &keyBudget, limits: limits, findings: &findings) {
                members.append((member, carriage))
            }
        }

        if let target, let (_, arguments) = CMCDQuery.arguments(of: target) {
            let values = arguments.compactMap(CMCDQuery.cmcdValue(of:))
            if let encoded = values.first {
                data.carriages.insert(.query)
                if values.count > 1 { findings.add(.query, .repeatedQueryArgument) }
                if encoded.utf8.count > limits.maxBytesPerCarriage {
                    findings.add(.query, .carriageTooLong(length: encoded.utf8.count, limit: limits.maxBytesPerCarriage))
                } else {
                    let bytes = CMCDQuery.decode(encoded, findings: &findings)
                    for member in DictionaryParser.parse(bytes, carriage: .query, keyBudget: &keyBudget, limits: limits, findings: &findings) {
                        members.append((member, .query))
                    }
                }
            }
        }

        guard !data.carriages.isEmpty else { return nil }
        data.assemble(members, findings: &findings)
        data.findings = findings.all
        return data
    }

    /// Pairs from members (a repeated key keeps its first place and takes the later value), then
    /// the version, then each key's typed value.
    mutating func assemble(_ members: [(DictionaryParser.Member, CMCDCarriage)], findings: inout FindingList) {
        var position: [String: Int] = [:]
        for (member, carriage) in members {
            if member.uppercase { findings.add(key: member.key, carriage, .uppercaseKey) }
            let pair = CMCDPair(key: member.key, value: member.value, carriage: carriage)
            if let index = position[member.key] {
                findings.add(key: member.key, carriage, .repeatedKey(firstIn: pairs[index].carriage))
                pairs[index] = pair
            } else {
                position[member.key] = pairs.count
                pairs.append(pair)
            }
        }

        if let pair = pair("v"), case .item(let item) = pair.value, case .integer(let declared) = item.value, declared >= 0 {
            if declared >= 1 { version = declared }
            if declared > 2 || declared == 0 { findings.add(key: "v", pair.carriage, .unsupportedVersion(declared)) }
        }
        // The rules of the highest version known read anything newer.
        let rules = min(version, 2)

        for pair in pairs {
            guard let key = CMCDKey(rawValue: pair.key) else {
                if !CMCDKey.isCustom(pair.key) { findings.add(key: pair.key, pair.carriage, .unknownKey) }
                continue
            }
            if !key.versions.contains(rules) { findings.add(key: pair.key, pair.carriage, .keyNotInVersion(version)) }
            if key.isReportKey { findings.add(key: pair.key, pair.carriage, .reportKeyOnRequest) }
            if case .header(let field) = pair.carriage, field != key.header(version: rules), !(key == .pr && (field == .session || field == .status)) {
                findings.add(key: pair.key, pair.carriage, .wrongHeader(expected: key.header(version: rules)))
            }
            let (typed, problems) = Self.typed(key, pair.value, version: rules)
            for problem in problems { findings.add(key: pair.key, pair.carriage, problem) }
            if let typed { store(typed, for: key) }
        }
    }
}

// MARK: - Typing one value by the key registry

extension CMCDData {
    enum Typed {
        case integer(Int), decimal(Double), string(String), token(String), boolean(Bool)
        case typedIntegers([CMCDTypedValue]), strings([String]), nextObjects([CMCDNextObject])
    }

    /// The value as the key's shape says, or nil with the problem; also problems that keep the value.
    static func typed(_ key: CMCDKey, _ value: CMCDValue, version: Int) -> (Typed?, [CMCDProblem]) {
        let shape = key.shape
        let wrongType: (Typed?, [CMCDProblem]) = (nil, [.wrongType(expected: shape, found: value.type)])
        switch (shape, value) {
        case (.integer, .item(let item)):
            guard case .integer(let number) = item.value else { return wrongType }
            return number < 0 ? (nil, [.negative(String(number))]) : (.integer(number), [])
        case (.decimal, .item(let item)):
            let number: Double
            switch item.value {
            case .integer(let integer): number = Double(integer)
            case .decimal(let decimal): number = decimal
            default: return wrongType
            }
            return number < 0 ? (nil, [.negative(item.value.wireText)]) : (.decimal(number), [])
        case (.string, .item(let item)):
            guard case .string(let text) = item.value else { return wrongType }
            if let limit = key.maxLength(version: version), text.count > limit {
                return (.string(text), [.stringTooLong(length: text.count, limit: limit)])
            }
            return (.string(text), [])
        case (.token(let allowed), .item(let item)):
            guard case .token(let token) = item.value else { return wrongType }
            return allowed.contains(token) ? (.token(token), []) : (nil, [.unknownToken(token)])
        case (.boolean, .item(let item)):
            guard case .boolean(let flag) = item.value else { return wrongType }
            return (.boolean(flag), flag ? [] : [.falseBoolean])
        case (.typedIntegers, .item(let item)):
            guard case .integer(let number) = item.value else { return wrongType }
            guard number >= 0 else { return (nil, [.negative(String(number))]) }
            return (.typedIntegers([CMCDTypedValue(number)]), version >= 2 ? [.shapeOfOtherVersion(version: version)] : [])
        case (.typedIntegers, .innerList(let items, _)):
            var values: [CMCDTypedValue] = []
            var problems: [CMCDProblem] = version == 1 ? [.shapeOfOtherVersion(version: 1)] : []
            for item in items {
                guard case .integer(let number) = item.value else { return (nil, [.wrongType(expected: shape, found: item.value.type)]) }
                guard number >= 0 else { return (nil, [.negative(String(number))]) }
                var objectType: CMCDObjectType?
                for parameter in item.parameters {
                    if let named = CMCDObjectType(rawValue: parameter.key), objectType == nil, parameter.value == .boolean(true) {
                        objectType = named
                    } else {
                        problems.append(.unknownParameter(parameter.key))
                    }
                }
                values.append(CMCDTypedValue(number, objectType))
            }
            return (.typedIntegers(values), problems)
        case (.stringList, .item(let item)):
            guard case .string(let text) = item.value else { return wrongType }
            return (.strings([text]), [.shapeOfOtherVersion(version: 2)])
        case (.stringList, .innerList(let items, _)):
            var texts: [String] = []
            for item in items {
                guard case .string(let text) = item.value else { return (nil, [.wrongType(expected: shape, found: item.value.type)]) }
                texts.append(text)
            }
            return (.strings(texts), [])
        case (.nextObjects, .item(let item)):
            guard case .string(let path) = item.value else { return wrongType }
            return (.nextObjects([CMCDNextObject(path: path)]), version >= 2 ? [.shapeOfOtherVersion(version: version)] : [])
        case (.nextObjects, .innerList(let items, _)):
            var objects: [CMCDNextObject] = []
            for item in items {
                guard case .string(let path) = item.value else { return (nil, [.wrongType(expected: shape, found: item.value.type)]) }
                var range: String?
                for parameter in item.parameters where parameter.key == "r" {
                    if case .string(let text) = parameter.value { range = text }
                }
                objects.append(CMCDNextObject(path: path, range: range))
            }
            return (.nextObjects(objects), version == 1 ? [.shapeOfOtherVersion(version: 1)] : [])
        default:
            return wrongType
        }
    }

    private mutating func store(_ typed: Typed, for key: CMCDKey) {
        switch typed {
        case .integer(let number):
            switch key {
            case .d: d = number
            case .dl: dl = number
            case .rtp: rtp = number
            case .v: v = number
            case .dfa: dfa = number
            case .ltc: ltc = number
            case .msd: msd = number
            case .pt: pt = number
            case .sn: sn = number
            case .ts: ts = number
            default: break  // report keys: read and checked, not kept as fields
            }
        case .decimal(let number):
            if key == .pr { pr = number }
        case .string(let text):
            switch key {
            case .cid: cid = text
            case .sid: sid = text
            case .cdn: cdn = text
            case .cs: cs = text
            case .nrr: nrr = text
            default: break
            }
        case .token(let token):
            switch key {
            case .ot: ot = CMCDObjectType(rawValue: token)
            case .sf: sf = CMCDStreamingFormat(rawValue: token)
            case .st: st = CMCDStreamType(rawValue: token)
            case .sta: sta = CMCDPlayerState(rawValue: token)
            default: break
            }
        case .boolean(let flag):
            switch key {
            case .bs: bs = flag
            case .su: su = flag
            case .bg: bg = flag
            case .nr: nr = flag
            default: break
            }
        case .typedIntegers(let values):
            switch key {
            case .br: br = values
            case .ab: ab = values
            case .tb: tb = values
            case .lb: lb = values
            case .tab: tab = values
            case .lab: lab = values
            case .tpb: tpb = values
            case .bl: bl = values
            case .tbl: tbl = values
            case .mtp: mtp = values
            case .pb: pb = values
            case .bsa: bsa = values
            case .bsd: bsd = values
            case .bsda: bsda = values
            default: break
            }
        case .strings(let texts):
            if key == .ec { ec = texts }
        case .nextObjects(let objects):
            if key == .nor { nor = objects }
        }
    }
}
