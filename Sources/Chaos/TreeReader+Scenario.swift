import Addressing
import JSON
import Link
import SpecReading

extension TreeReader {
    mutating func scenario(_ value: JSONValue) -> Scenario? {
        guard let members = object(value, "$", allowed: RuleKeys.scenario,
                                   elsewhere: [("rules[].match", RuleKeys.match), ("rules[].action", RuleKeys.action),
                                               ("expect[]", RuleKeys.expectation)]) else {
            return nil
        }
        var name: String?
        if let (value, path) = required(members, "name", "$") { name = self.name(value, path) }
        let description = members["description"].flatMap { string($0.0, $0.1, nonEmpty: false) }
        let reference = members["reference"].flatMap { string($0.0, $0.1, nonEmpty: false) }
        if let (value, path) = members["$schema"] { _ = string(value, path) }

        var expected: [String: String] = [:]
        if let (value, path) = members["expected"],
           let players = object(value, path, allowed: RuleKeys.expected) {
            for (player, (text, textPath)) in players {
                if let reaction = string(text, textPath) { expected[player] = reaction }
            }
        }

        let play = members["play"].flatMap { self.play($0.0, $0.1) }

        let link = members["link"].flatMap { linkSpec($0.0, $0.1) }
        let linkValid = members["link"] == nil || link != nil
        var rules: [Rule] = []
        var rulesValid = false
        if members["rules"] == nil, members["link"] != nil {
            rulesValid = true  // a scenario may give a link alone
        } else if let (value, path) = required(members, "rules", "$") {
            if case .array(let elements) = value {
                if elements.isEmpty, members["link"] != nil {
                    rulesValid = true
                } else if elements.isEmpty {
                    report(path, "no rules (a scenario needs at least one, or a \"link\")")
                } else {
                    rulesValid = true
                    var firstUse: [String: String] = [:]
                    for (offset, element) in elements.enumerated() {
                        let rulePath = "\(path)[\(offset)]"
                        let rule = self.rule(element, rulePath)
                        if case .object(let fields) = element, let idField = fields.first(where: { $0.key == "id" }),
                           case .string(let id) = idField.value {
                            if let first = firstUse[id] {
                                report("\(rulePath).id", "duplicate rule id \"\(id)\" (first used at \(first))")
                                rulesValid = false
                            } else {
                                firstUse[id] = "\(rulePath).id"
                            }
                        }
                        if let rule { rules.append(rule) } else { rulesValid = false }
                    }
                }
            } else {
                report(path, "expected a list of rules, got \(value.typeName)")
            }
        }
        var expectations: [Expectation] = []
        var expectationsValid = true
        if let (value, path) = members["expect"] {
            if let list = self.expectations(value, path) { expectations = list } else { expectationsValid = false }
        }
        guard let name, rulesValid, expectationsValid, linkValid else { return nil }
        return Scenario(name: name, description: description, reference: reference, expected: expected, rules: rules,
                        play: play, expectations: expectations, link: link)
    }

    mutating func play(_ value: JSONValue, _ path: String) -> PlayHint? {
        guard let members = object(value, path, allowed: RuleKeys.play) else { return nil }
        var hint = PlayHint()
        for (key, choices) in [("stream", PlayHint.streams), ("flavour", PlayHint.flavours)] {
            guard let (value, valuePath) = members[key], let text = string(value, valuePath) else { continue }
            guard choices.contains(text) else {
                let suggestion = Suggestions.nearest(to: text, in: choices).map { " (did you mean \"\($0)\"?)" } ?? ""
                report(valuePath, "unknown \(key) \"\(text)\"\(suggestion); the demo has \(choices.map { "\"\($0)\"" }.joined(separator: ", "))")
                continue
            }
            if key == "stream" { hint.stream = text } else { hint.flavour = text }
        }
        if let (value, valuePath) = members["for"], let duration = duration(value, valuePath) {
            hint.seconds = duration.seconds
        }
        if hint.stream == "live" || hint.stream == "steering", let flavour = hint.flavour, flavour == "byterange" {
            report(Self.child(path, "flavour"), "the demo's \(hint.stream ?? "live") stream has no \"byterange\" flavour (ts, fmp4, aes)")
        }
        if hint.stream == "ll", let flavour = hint.flavour, flavour != "fmp4" {
            report(Self.child(path, "flavour"), "the demo's low-latency stream is fMP4 only: use \"fmp4\" or leave \"flavour\" out")
        }
        return hint
    }

    mutating func rule(_ value: JSONValue, _ path: String) -> Rule? {
        guard let members = object(value, path, allowed: RuleKeys.rule,
                                   elsewhere: [("match", RuleKeys.match), ("action", RuleKeys.action)]) else { return nil }
        let before = problems.count
        var id: String?
        if let (value, idPath) = required(members, "id", path) { id = name(value, idPath) }
        if let (value, descriptionPath) = members["description"] { _ = string(value, descriptionPath, nonEmpty: false) }
        var match: Match?
        if let (value, matchPath) = required(members, "match", path) { match = self.match(value, matchPath) }
        var action: Action?
        if let (value, actionPath) = required(members, "action", path) { action = self.action(value, actionPath) }
        if let match, let action, let (_, actionPath) = members["action"] {
            checkKinds(match: match, action: action, actionPath: actionPath)
            if match.requests != nil, let step = action.playlist.first(where: \.isSegmentTargeted),
               let (_, matchPath) = members["match"] {
                report(Self.child(matchPath, "requests"),
                       "\"requests\" cannot be used with \"\(step.name)\" (segments are selected the same way on every reload; use msn, index, time or probability)")
            }
        }
        guard let id, let match, let action, problems.count == before else { return nil }
        return Rule(id: id, match: match, action: action)
    }

    /// Reports a playlist action whose resource kind the rule's `kind` excludes (it could never apply).
    private mutating func checkKinds(match: Match, action: Action, actionPath: String) {
        if action.wire == .rejectRanges, match.range == false {
            report(Self.child(actionPath, "rejectRanges"), "\"rejectRanges\" only affects Range requests, but match.range is false")
        }
        guard let kinds = match.kinds else { return }
        for step in action.playlist {
            let applicable = step.applicableKinds
            if kinds.isDisjoint(with: applicable) {
                let names = ResourceKind.allCases.filter(applicable.contains).map(\.rawValue).joined(separator: " or ")
                let allowed = ResourceKind.allCases.filter(kinds.contains).map(\.rawValue).joined(separator: ", ")
                report(Self.child(actionPath, step.name),
                       "\"\(step.name)\" applies to \(names) requests, but match.kind allows only \(allowed)")
            }
        }
    }
}

extension PlaylistAction {
    /// The request kinds on which the action has an effect.
    public var applicableKinds: Set<ResourceKind> {
        switch self {
        case .stripVariants, .stripRenditions, .backupVariants: [.master]
        case .gap: [.media, .segment]
        case .remove: [.media, .segment]
        case .freeze, .lag, .malform: [.master, .media]
        case .sequenceShift, .targetDuration, .endList, .ignoreDirectives, .lowLatency: [.media]
        case .sessionData: [.master, .sessionData]
        case .key: [.key]
        case .steering: [.steering]
        }
    }
}
