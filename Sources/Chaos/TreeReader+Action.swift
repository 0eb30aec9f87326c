import JSON
import SpecReading

extension TreeReader {
    mutating func action(_ value: JSONValue, _ path: String) -> Action? {
        let start = problems.count
        guard let members = object(value, path, allowed: RuleKeys.action, elsewhere: [("match", RuleKeys.match)]) else {
            return nil
        }
        let before = problems.count
        let given = RuleKeys.action.filter { members[$0] != nil }
        let wireKeys = given.filter(RuleKeys.wireActions.contains)
        let playlistKeys = given.filter(RuleKeys.playlistActions.contains)

        if wireKeys.isEmpty, playlistKeys.isEmpty, members["delay"] == nil {
            // An unknown key was already reported (probably a misspelt action); headers/body are reported below.
            if members["headers"] != nil || members["body"] != nil || problems.count > start {
            } else {
                report(path, "no action given (use \"delay\", a wire action such as \"status\" or a playlist action such as \"gap\")")
            }
        }
        if wireKeys.count > 1 {
            report(path, "\(quotedList(wireKeys)) cannot be combined (one wire action per rule; only \"delay\" combines with others)")
        }
        if let wire = wireKeys.first, let playlist = playlistKeys.first {
            report(path, "\"\(wire)\" (wire) and \"\(playlist)\" (playlist) cannot be combined; use two rules")
        }
        for (first, second) in [("gap", "remove"), ("freeze", "lag")] where members[first] != nil && members[second] != nil {
            report(path, "\"\(first)\" and \"\(second)\" cannot be combined")
        }
        if members["status"] == nil {
            for extra in RuleKeys.statusExtras where members[extra] != nil {
                report(Self.child(path, extra), "\"\(extra)\" needs \"status\" in the same action")
            }
        }

        var action = Action()
        if let (value, keyPath) = members["delay"] { action.delay = duration(value, keyPath) }
        for key in wireKeys {
            // Every wire action is read so that its own problems are reported too; the rule keeps one.
            guard let (value, keyPath) = members[key], let wire = wireAction(key, value, keyPath, members) else { continue }
            if action.wire == nil { action.wire = wire }
        }
        for key in playlistKeys {
            guard let (value, keyPath) = members[key] else { continue }
            if let step = playlistAction(key, value, keyPath) { action.playlist.append(step) }
        }
        return problems.count == before ? action : nil
    }

    func quotedList(_ keys: [String]) -> String {
        let quoted = keys.map { "\"\($0)\"" }
        return quoted.count == 2 ? "\(quoted[0]) and \(quoted[1])" : quoted.dropLast().joined(separator: ", ") + " and " + quoted.last!
    }

    /// `true` is the only accepted value of a switch-like action.
    private mutating func trueOnly(_ value: JSONValue, _ path: String, _ key: String) -> Bool {
        guard case .bool(true) = value else {
            report(path, "\"\(key)\" takes true, got \(value == .bool(false) ? "false (remove the key instead)" : value.typeName)")
            return false
        }
        return true
    }

    private mutating func wireAction(_ key: String, _ value: JSONValue, _ path: String,
                                     _ members: [String: (JSONValue, String)]) -> WireAction? {
        switch key {
        case "status":
            let code = integer(value, path, "status", in: 100...599)
            var headers: [HTTPHeaderField] = []
            if let (headerValue, headerPath) = members["headers"] {
                if case .object(let fields) = headerValue {
                    var seen = Set<String>()
                    for field in fields {
                        let fieldPath = Self.child(headerPath, field.key)
                        if !HTTPFieldSyntax.isToken(field.key) {
                            report(fieldPath, "invalid header name \"\(field.key)\": a name is letters, digits and \(HTTPFieldSyntax.tokenSymbols)")
                        } else if !seen.insert(field.key.lowercased()).inserted {
                            report(fieldPath, "duplicate header \"\(field.key)\"")
                        } else if let text = string(field.value, fieldPath, nonEmpty: false) {
                            if !HTTPFieldSyntax.isFieldValue(text) {
                                report(fieldPath, "a header value is \(HTTPFieldSyntax.valueRule)")
                            } else {
                                headers.append(HTTPHeaderField(name: field.key, value: text))
                            }
                        }
                    }
                } else {
                    report(headerPath, "expected an object of header names to values, got \(headerValue.typeName)")
                }
            }
            let body = members["body"].flatMap { string($0.0, $0.1, nonEmpty: false) }
            return code.map { .status(code: $0, headers: headers, body: body) }
        case "hang":
            if case .bool(true) = value { return .hang(nil) }
            if case .string = value { return duration(value, path).map { .hang($0) } }
            report(path, "\"hang\" takes true (forever) or a duration such as \"30s\", got \(value.typeName)")
            return nil
        case "throttle":
            return bytesPerSecond(value, path).map { .throttle(bytesPerSecond: $0) }
        case "stall":
            guard let fields = object(value, path, allowed: RuleKeys.stall) else { return nil }
            let bytes = required(fields, "afterBytes", path).flatMap { integer($0.0, $0.1, "afterBytes", in: 0...Int.max) }
            let pause = required(fields, "for", path).flatMap { duration($0.0, $0.1) }
            guard let bytes, let pause else { return nil }
            return .stall(afterBytes: bytes, duration: pause)
        case "reset":
            if case .string = value {
                return keyword(value, path, "reset point", in: RuleKeys.resetKeywords).map { _ in .reset(.beforeHeaders) }
            }
            guard case .object = value else {
                report(path, "\"reset\" takes \"before-headers\" or {\"afterBytes\": N}, got \(value.typeName)")
                return nil
            }
            guard let fields = object(value, path, allowed: RuleKeys.reset) else { return nil }
            return required(fields, "afterBytes", path)
                .flatMap { integer($0.0, $0.1, "afterBytes", in: 0...Int.max) }
                .map { .reset(.afterBytes($0)) }
        case "truncate":
            guard let fields = object(value, path, allowed: RuleKeys.truncate) else { return nil }
            if fields["afterBytes"] != nil, fields["fraction"] != nil {
                report(path, "give either \"afterBytes\" or \"fraction\", not both")
                return nil
            }
            if let (bytes, bytesPath) = fields["afterBytes"] {
                return integer(bytes, bytesPath, "afterBytes", in: 0...Int.max).map { .truncate(.afterBytes($0)) }
            }
            guard let (fraction, fractionPath) = fields["fraction"] else {
                report(path, "give \"afterBytes\" or \"fraction\"")
                return nil
            }
            guard case .number(let number, let text) = fraction else {
                report(fractionPath, "expected a number between 0 and 1, got \(fraction.typeName)")
                return nil
            }
            guard number > 0, number < 1 else {
                report(fractionPath, "fraction must be greater than 0 and less than 1, got \(text)")
                return nil
            }
            return .truncate(.fraction(number))
        case "corrupt":
            guard let fields = object(value, path, allowed: RuleKeys.corrupt) else { return nil }
            let count = required(fields, "bytes", path).flatMap { integer($0.0, $0.1, "bytes", in: 1...1_000_000) }
            var seedValue: UInt64 = 0
            if let (seedJSON, seedPath) = fields["seed"] {
                guard let parsed = self.seed(seedJSON, seedPath) else { return nil }
                seedValue = parsed
            }
            return count.map { .corrupt(bytes: $0, seed: seedValue) }
        case "contentType":
            guard let text = string(value, path) else { return nil }
            guard HTTPFieldSyntax.isFieldValue(text) else {
                report(path, "contentType is a header value: \(HTTPFieldSyntax.valueRule)")
                return nil
            }
            return .contentType(text)
        case "redirect":
            guard let fields = object(value, path, allowed: RuleKeys.redirect) else { return nil }
            let before = problems.count
            var status = 302
            if let (statusValue, statusPath) = fields["status"],
               let code = integer(statusValue, statusPath, "status", in: 100...599) {
                if RuleKeys.redirectStatuses.contains(code) {
                    status = code
                } else {
                    report(statusPath, "redirect status must be one of \(RuleKeys.redirectStatuses.map(String.init).joined(separator: ", ")), got \(code)")
                }
            }
            let hops = fields["hops"].flatMap { integer($0.0, $0.1, "hops", in: 1...100) } ?? 1
            let loop = fields["loop"].flatMap { bool($0.0, $0.1) } ?? false
            if loop, fields["hops"] != nil, let (_, hopsPath) = fields["hops"] {
                report(hopsPath, "\"hops\" has no effect with \"loop\": true")
            }
            return problems.count == before ? .redirect(status: status, hops: hops, loop: loop) : nil
        case "rejectRanges":
            return trueOnly(value, path, key) ? .rejectRanges : nil
        default:
            return nil
        }
    }

    private mutating func playlistAction(_ key: String, _ value: JSONValue, _ path: String) -> PlaylistAction? {
        switch key {
        case "stripVariants":
            return oneOrMany(value, path) { $0.variantSelector($1, $2) }.map(PlaylistAction.stripVariants)
        case "stripRenditions":
            return oneOrMany(value, path) { $0.renditionSelector($1, $2) }.map(PlaylistAction.stripRenditions)
        case "gap":
            if case .bool = value { return trueOnly(value, path, key) ? .gap(status: 404) : nil }
            guard let fields = object(value, path, allowed: RuleKeys.gap) else { return nil }
            guard let (statusValue, statusPath) = fields["status"] else { return .gap(status: 404) }
            guard let code = integer(statusValue, statusPath, "status", in: 100...599) else { return nil }
            guard RuleKeys.gapStatuses.contains(code) else {
                report(statusPath, "gap status must be 404 or 410, got \(code)")
                return nil
            }
            return .gap(status: code)
        case "remove":
            return trueOnly(value, path, key) ? .remove : nil
        case "freeze":
            return trueOnly(value, path, key) ? .freeze : nil
        case "lag":
            return duration(value, path).map(PlaylistAction.lag)
        case "sequenceShift":
            guard let shift = integer(value, path, "sequenceShift", in: -1_000_000...1_000_000) else { return nil }
            guard shift != 0 else {
                report(path, "sequenceShift of 0 changes nothing")
                return nil
            }
            return .sequenceShift(shift)
        case "targetDuration":
            return integer(value, path, "targetDuration", in: 1...86_400).map(PlaylistAction.targetDuration)
        case "endList":
            return keyword(value, path, "endList change", in: RuleKeys.endList).flatMap(EndListChange.init).map(PlaylistAction.endList)
        case "malform":
            return keyword(value, path, "malformation", in: RuleKeys.malform).flatMap(Malformation.init).map(PlaylistAction.malform)
        case "sessionData":
            return keyword(value, path, "session-data damage", in: RuleKeys.sessionData).flatMap(SessionDataDamage.init).map(PlaylistAction.sessionData)
        case "key":
            return keyword(value, path, "key damage", in: RuleKeys.key).flatMap(KeyDamage.init).map(PlaylistAction.key)
        case "backupVariants":
            return trueOnly(value, path, key) ? .backupVariants : nil
        case "ignoreDirectives":
            return trueOnly(value, path, key) ? .ignoreDirectives : nil
        case "lowLatency":
            return keyword(value, path, "LL-HLS damage", in: RuleKeys.lowLatency).flatMap(LowLatencyDamage.init).map(PlaylistAction.lowLatency)
        case "steering":
            return steeringDamage(value, path).map(PlaylistAction.steering)
        default:
            return nil
        }
    }
}

extension TreeReader {
    /// `{"ttl": 1, "priority": ["cdn-b"], "reloadURI": "gone.json", "malformed": true}`: at least one field.
    mutating func steeringDamage(_ value: JSONValue, _ path: String) -> SteeringDamage? {
        let before = problems.count
        guard let fields = object(value, path, allowed: RuleKeys.steering) else { return nil }
        var damage = SteeringDamage()
        if let (ttl, ttlPath) = fields["ttl"] { damage.ttl = integer(ttl, ttlPath, "ttl", in: 0...86_400) }
        if let (priority, priorityPath) = fields["priority"] {
            damage.priority = oneOrMany(priority, priorityPath) { $0.pathwayID($1, $2) }
        }
        if let (uri, uriPath) = fields["reloadURI"] { damage.reloadURI = string(uri, uriPath) }
        if let (malformed, malformedPath) = fields["malformed"] {
            damage.malformed = trueOnly(malformed, malformedPath, "malformed")
        }
        guard problems.count == before else { return nil }
        guard damage != SteeringDamage() else {
            report(path, "steering damage needs at least one of \(RuleKeys.steering.map { "\"\($0)\"" }.joined(separator: ", "))")
            return nil
        }
        return damage
    }
}
