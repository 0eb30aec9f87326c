import Addressing
import Foundation
import Records
import Testing

/// A record's actions are data: their JSON keeps kind, rule and values, their words are made in one
/// place, and records written when actions were words still read.
@Suite struct RecordActionTests {
    /// One action of every kind, with the words people see for it.
    static let everyKindWithWords: [(RequestRecord.Action, String)] = [
        (.init(.delay(seconds: 2), rule: "slow/seg"), "delay 2s"),
        (.init(.delay(seconds: 0.25), rule: "slow/seg"), "delay 0.25s"),
        (.init(.status(503), rule: "outage/seg-503"), "status 503"),
        (.init(.hang(seconds: nil), rule: "net/hang"), "hang"),
        (.init(.hang(seconds: 60), rule: "net/hang"), "hang 60s"),
        (.init(.throttle(bytesPerSecond: 37_500), rule: "net/slow"), "throttle 37500 B/s"),
        (.init(.stall(afterBytes: 1000, seconds: 1.5), rule: "net/stall"), "stall 1.5s after 1000 bytes"),
        (.init(.reset(.beforeHeaders), rule: "net/rst"), "reset before headers"),
        (.init(.reset(.afterBytes(1000)), rule: "net/rst"), "reset after 1000 bytes"),
        (.init(.truncate(.afterBytes(50)), rule: "net/cut"), "truncate after 50 bytes"),
        (.init(.truncate(.fraction(0.5)), rule: "net/cut"), "truncate at 0.5 of the body"),
        (.init(.corrupt(bytes: 16), rule: "bits/flip"), "corrupt 16 bytes"),
        (.init(.contentType("text/plain"), rule: "type/wrong"), "content-type text/plain"),
        (.init(.redirect(status: 302, hops: 3, loop: false), rule: "move/three"), "redirect 302 × 3"),
        (.init(.redirect(status: 301, hops: 0, loop: true), rule: "move/loop"), "redirect 301 loop"),
        (.init(.rejectRanges, rule: "range/no"), "reject ranges (501)"),
        (.init(.content("gap"), rule: "gap/top"), "gap"),
        (.init(.unknown(words: "delay 2.0s"), rule: nil), "delay 2.0s"),
    ]

    static var everyKind: [RequestRecord.Action] { everyKindWithWords.map(\.0) }

    func record(_ actions: [RequestRecord.Action]) -> RequestRecord {
        RequestRecord(id: 1, time: Date(timeIntervalSince1970: 1_800_000_000), session: "tv1", client: "", method: "GET",
                      path: "/s/tv1/~seg.v0.n1/x.ts", kind: .segment, actions: actions)
    }

    @Test func wordsForEveryKind() {
        for (action, words) in Self.everyKindWithWords { #expect(action.words == words) }
    }

    @Test func roundTripsThroughJSON() throws {
        let record = record(Self.everyKind)
        let decoded = try JSONDecoder().decode(RequestRecord.self, from: JSONEncoder().encode(record))
        #expect(decoded == record)
    }

    /// What the dashboard and API clients read: the kind, the rule, values named plainly, the words.
    @Test func writesTheDocumentedFields() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func json(_ action: RequestRecord.Action) throws -> String { String(decoding: try encoder.encode(action), as: UTF8.self) }
        #expect(try json(.init(.delay(seconds: 2), rule: "slow/seg"))
            == #"{"kind":"delay","rule":"slow/seg","seconds":2,"words":"delay 2s"}"#)
        #expect(try json(.init(.reset(.beforeHeaders), rule: "n/r"))
            == #"{"beforeHeaders":true,"kind":"reset","rule":"n/r","words":"reset before headers"}"#)
        #expect(try json(.init(.redirect(status: 302, hops: 3, loop: false), rule: "m/t"))
            == #"{"hops":3,"kind":"redirect","loop":false,"rule":"m/t","status":302,"words":"redirect 302 × 3"}"#)
        #expect(try json(.init(.content("gap"), rule: "g/t")) == #"{"kind":"gap","rule":"g/t","words":"gap"}"#)
        let record = String(decoding: try encoder.encode(record([.init(.status(503), rule: "o/s")])), as: UTF8.self)
        #expect(record.contains(#""kind":"segment""#))
        #expect(record.contains(#""actions":[{"kind":"status","rule":"o/s","status":503,"words":"status 503"}]"#))
    }

    /// Words are written for people and never read: the values decide.
    @Test func ignoresWordsWhenReading() throws {
        let json = #"{"kind": "delay", "rule": "slow/seg", "seconds": 3, "words": "delay 99s"}"#
        let action = try JSONDecoder().decode(RequestRecord.Action.self, from: Data(json.utf8))
        #expect(action == .init(.delay(seconds: 3), rule: "slow/seg"))
        #expect(action.words == "delay 3s")
    }

    /// A record of an older version, its actions in words: they read as actions of kind `unknown`.
    @Test func readsRecordsWhoseActionsAreWords() throws {
        let json = #"""
            {"id": 7, "time": "2026-11-28T12:00:00Z", "session": "tv1", "client": "192.168.1.20:51234", "method": "GET",
             "path": "/s/tv1/~seg.v2.n42/https/cdn/seg42.ts", "kind": "segment", "variant": 2, "msn": 42,
             "matchedRules": ["outage/seg-503"], "decidingRules": {"response": "outage/seg-503", "content": []},
             "actions": ["delay 2.0s", "status 503"], "status": 503, "bytesSent": 0, "ending": "complete", "duration": 2.0,
             "requestHeaders": [], "responseHeaders": []}
            """#
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let record = try decoder.decode(RequestRecord.self, from: Data(json.utf8))
        #expect(record.kind == .segment)
        #expect(record.actions == [.init(.unknown(words: "delay 2.0s"), rule: nil), .init(.unknown(words: "status 503"), rule: nil)])
        #expect(record.actions.map(\.words) == ["delay 2.0s", "status 503"])
        #expect(record.actions.map(\.name) == ["unknown", "unknown"])
    }

    /// Bad input is an error that names the field, never a crash.
    @Test func namesTheFieldOfABadAction() throws {
        let missing = #"{"kind": "delay", "rule": "slow/seg"}"#
        #expect {
            try JSONDecoder().decode(RequestRecord.Action.self, from: Data(missing.utf8))
        } throws: { error in
            guard case DecodingError.keyNotFound(let key, _) = error else { return false }
            return key.stringValue == "seconds"
        }
        let cut = #"{"kind": "truncate"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(RequestRecord.Action.self, from: Data(cut.utf8)) }
    }

    /// A kind no version of hlschaos wrote is a decode error naming `kind`.
    @Test func refusesAnUnknownResourceKind() throws {
        let json = #"""
            {"id": 7, "time": "2026-11-28T12:00:00Z", "session": "tv1", "client": "", "method": "GET", "path": "/x",
             "kind": "video", "matchedRules": [], "decidingRules": {"content": []}, "actions": [], "bytesSent": 0,
             "ending": "complete", "duration": 0, "requestHeaders": [], "responseHeaders": []}
            """#
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect {
            try decoder.decode(RequestRecord.self, from: Data(json.utf8))
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == ["kind"]
        }
    }
}
