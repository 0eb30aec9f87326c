import Foundation
import JSON
import Testing
@testable import Chaos
import SpecReading

/// rules/schema.json must name exactly the keys and words the decoder accepts.
@Suite struct SchemaSyncTests {
    static func schema() throws -> JSONValue {
        let url = PresetTests.rulesDirectory.appendingPathComponent("schema.json")
        let data = try #require(FileManager.default.contents(atPath: url.path))
        return try JSONValue.parse([UInt8](data))
    }

    /// The value at a path of object keys.
    func at(_ value: JSONValue, _ keys: String...) -> JSONValue? {
        var current = value
        for key in keys {
            guard case .object(let members) = current, let member = members.first(where: { $0.key == key }) else { return nil }
            current = member.value
        }
        return current
    }

    func propertyNames(_ value: JSONValue?) -> [String] {
        guard let value, case .object(let members)? = at(value, "properties") else { return [] }
        return members.map(\.key)
    }

    func enumWords(_ value: JSONValue?) -> [String] {
        guard let value, case .array(let items)? = at(value, "enum") else { return [] }
        return items.compactMap { if case .string(let text) = $0 { text } else { nil } }
    }

    /// The object alternative of a `oneOf`.
    func objectAlternative(_ value: JSONValue?) -> JSONValue? {
        guard let value, case .array(let options)? = at(value, "oneOf") else { return nil }
        return options.first { at($0, "properties") != nil }
    }

    @Test func keysMatchTheDecoder() throws {
        let schema = try Self.schema()
        let defs = try #require(at(schema, "$defs"))
        #expect(propertyNames(schema) == RuleKeys.scenario)
        #expect(propertyNames(at(defs, "expected")) == RuleKeys.expected)
        #expect(propertyNames(at(defs, "rule")) == RuleKeys.rule)
        #expect(propertyNames(at(defs, "match")) == RuleKeys.match)
        #expect(Set(propertyNames(at(defs, "action"))) == Set(RuleKeys.action))
        #expect(propertyNames(objectAlternative(at(defs, "variantSelector"))) == RuleKeys.variantSelector)
        #expect(propertyNames(at(defs, "renditionSelector")) == RuleKeys.renditionSelector)
        #expect(propertyNames(objectAlternative(at(defs, "numberShape"))) == RuleKeys.numberSet)
        #expect(propertyNames(at(defs, "match", "properties", "time")) == RuleKeys.window)
        #expect(propertyNames(objectAlternative(at(defs, "match", "properties", "requests"))) == RuleKeys.window)
        #expect(propertyNames(at(defs, "action", "properties", "stall")) == RuleKeys.stall)
        #expect(propertyNames(objectAlternative(at(defs, "action", "properties", "reset"))) == RuleKeys.reset)
        #expect(propertyNames(at(defs, "action", "properties", "corrupt")) == RuleKeys.corrupt)
        #expect(propertyNames(at(defs, "action", "properties", "redirect")) == RuleKeys.redirect)
        #expect(propertyNames(objectAlternative(at(defs, "action", "properties", "gap"))) == RuleKeys.gap)
        if case .array(let options)? = at(defs, "action", "properties", "truncate", "oneOf") {
            #expect(options.flatMap { propertyNames($0) } == RuleKeys.truncate)
        } else {
            Issue.record("truncate.oneOf missing")
        }
    }

    @Test func wordsMatchTheDecoder() throws {
        let schema = try Self.schema()
        let defs = try #require(at(schema, "$defs"))
        let action = try #require(at(defs, "action", "properties"))
        #expect(enumWords(at(defs, "kindName")) == RuleKeys.kinds)
        #expect(enumWords(at(defs, "match", "properties", "copy")) == RuleKeys.copies)
        #expect(enumWords(at(defs, "renditionSelector", "properties", "type")) == RuleKeys.renditionTypes)
        #expect(enumWords(at(action, "malform")) == RuleKeys.malform)
        #expect(enumWords(at(action, "endList")) == RuleKeys.endList)
        #expect(enumWords(at(action, "sessionData")) == RuleKeys.sessionData)
        #expect(enumWords(at(action, "key")) == RuleKeys.key)
        guard case .array(let variantOptions)? = at(defs, "variantSelector", "oneOf") else {
            Issue.record("variantSelector.oneOf missing")
            return
        }
        #expect(variantOptions.contains { enumWords($0) == RuleKeys.variantKeywords })
    }

    @Test func expectationKeysAndWordsMatchTheDecoder() throws {
        let schema = try Self.schema()
        let defs = try #require(at(schema, "$defs"))
        let expectation = try #require(at(defs, "expectation"))
        #expect(propertyNames(expectation) == RuleKeys.expectation)
        #expect(propertyNames(at(defs, "check")) == RuleKeys.checks)
        // Exactly one check per item: oneOf [{"required": [check]}] over every check key.
        if case .array(let options)? = at(expectation, "oneOf") {
            let required = options.map { option -> String in
                guard case .array(let keys)? = at(option, "required"), keys.count == 1, case .string(let key) = keys[0] else { return "?" }
                return key
            }
            #expect(required == RuleKeys.checks)
        } else {
            Issue.record("expectation.oneOf missing")
        }
        #expect(enumWords(at(defs, "playerName")) == RuleKeys.playerNames)
        #expect(enumWords(at(defs, "outcomeName")) == RuleKeys.outcomes)
        #expect(enumWords(at(expectation, "properties", "reloadCadence")) == RuleKeys.reloadPaces)
        #expect(enumWords(at(expectation, "properties", "neverRequested")) == RuleKeys.forbidden)
        #expect(propertyNames(objectAlternative(at(defs, "timing"))) == RuleKeys.timing)
        #expect(propertyNames(at(defs, "bounds")) == RuleKeys.bounds)
        #expect(propertyNames(objectAlternative(at(defs, "playerError"))) == RuleKeys.playerError)
        #expect(propertyNames(objectAlternative(at(defs, "switchedDownTiming"))) == RuleKeys.switchTiming)
        #expect(propertyNames(objectAlternative(at(defs, "switchedUpTiming"))) == RuleKeys.switchTiming)
        #expect(enumWords(objectAlternative(at(defs, "switchedDownTiming")).flatMap { at($0, "properties", "after") }) == RuleKeys.switchedDownAnchors)
        #expect(enumWords(objectAlternative(at(defs, "switchedUpTiming")).flatMap { at($0, "properties", "after") }) == RuleKeys.switchedUpAnchors)
        #expect(propertyNames(at(defs, "switches")) == RuleKeys.switches)
        #expect(propertyNames(at(defs, "utilisation")) == RuleKeys.utilisation)
        #expect(propertyNames(at(defs, "overshoot")) == RuleKeys.overshoot)
    }

    @Test func percentagePatternAgreesWithTheDecoder() throws {
        let schema = try Self.schema()
        guard case .string(let pattern)? = at(schema, "$defs", "percentage", "pattern") else {
            Issue.record("percentage pattern missing")
            return
        }
        let regex = try NSRegularExpression(pattern: pattern)
        for text in ["70%", "72.5%", "0%", "100%", "70", "0.7", "-5%", ".5%", "5.%", "70 %", "70%%", "150%", "100.5%", "100.0%"] {
            let schemaAccepts = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
            let json = #"{"name": "t", "expect": [{"utilisation": {"atLeast": "\#(text)"}}], "rules": [{"id": "r", "match": {}, "action": {"delay": "1s"}}]}"#
            #expect(schemaAccepts == problems(json).isEmpty, "\(text)")
        }
    }

    @Test func durationPatternAgreesWithTheDecoder() throws {
        let schema = try Self.schema()
        guard case .string(let pattern)? = at(schema, "$defs", "duration", "pattern") else {
            Issue.record("duration pattern missing")
            return
        }
        let regex = try NSRegularExpression(pattern: pattern)
        for text in ["2s", "500ms", "1.5s", "1m", "0s", "2h", "2 s", "s", "1.s", ".5s", "-1s", "2sec", "1e3s"] {
            let schemaAccepts = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
            #expect(schemaAccepts == ((try? ValueText.duration(text).get()) != nil), "\(text)")
        }
    }
}
