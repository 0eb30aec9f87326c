import Addressing
import Foundation

/// A record as bytes, for the in-memory ring: no heap object per record, so a ring of 50,000 does
/// not keep 150,000 small allocations alive (which slowed every other malloc of the proxy).
///
/// The layout is private to this process and read back only by `RecordBytes.decode`: id and session
/// first (a reader filtering by session decodes nothing else), then a bitmask of the optional
/// fields present, then the fields in declaration order. Integers are LEB128 varints (signed ones
/// zigzag), doubles their bit patterns, strings a length and UTF-8 bytes cut at `stringLimit`.
enum RecordBytes {
    /// The longest string kept in memory, in UTF-8 bytes; longer ones end in "…" (the events file
    /// keeps them whole). A request head may be tens of kilobytes, a ring slot should not be.
    static let stringLimit = 8192

    /// Endings by their number in a record (`allCases` would build a new array at each use).
    private static let endings = RequestRecord.Ending.allCases
    /// Resource kinds by their number in a record.
    private static let kinds = ResourceKind.allCases

    /// How many bytes `write` takes for `record`.
    static func count(_ record: RequestRecord) -> Int {
        var counter = Counter()
        walk(record, into: &counter)
        return counter.count
    }

    /// Writes `record` at `start`, using at most `limit` bytes: the count written, or nil when the
    /// record needs more (then what was written there means nothing).
    static func write(_ record: RequestRecord, to start: UnsafeMutableRawPointer, limit: Int) -> Int? {
        var writer = Writer(cursor: start, end: start + limit)
        walk(record, into: &writer)
        return writer.overflowed ? nil : writer.cursor - start
    }

    /// The one description of the layout, for both `count` and `write`: they cannot disagree.
    private static func walk<Out: ByteSink>(_ record: RequestRecord, into out: inout Out) {
        out.unsigned(record.id)
        out.string(record.session)
        var present: UInt64 = 0
        func mark(_ bit: Field, _ isPresent: Bool) { if isPresent { present |= 1 << bit.rawValue } }
        mark(.kind, record.kind != nil)
        mark(.variant, record.variant != nil)
        mark(.rendition, record.rendition != nil)
        mark(.iFrameVariant, record.iFrameVariant != nil)
        mark(.copy, record.copy != nil)
        mark(.msn, record.msn != nil)
        mark(.part, record.part != nil)
        if let upstream = record.upstream {
            mark(.upstream, true)
            mark(.upstreamStatus, upstream.status != nil)
            mark(.connect, upstream.connect != nil)
            mark(.firstByte, upstream.firstByte != nil)
            mark(.total, upstream.total != nil)
            mark(.error, upstream.error != nil)
        }
        mark(.responseRule, record.decidingRules.response != nil)
        mark(.delayRule, record.decidingRules.delay != nil)
        mark(.status, record.status != nil)
        mark(.httpVersion, record.httpVersion != nil)
        mark(.pathway, record.pathway != nil)
        mark(.link, record.link != nil)
        mark(.cmcd, record.cmcd != nil)
        out.unsigned(present)
        out.double(record.time.timeIntervalSinceReferenceDate)
        out.string(record.client)
        out.string(record.method)
        out.string(record.path)
        if let kind = record.kind { out.unsigned(UInt64(kinds.firstIndex(of: kind) ?? 0)) }
        if let variant = record.variant { out.signed(variant) }
        if let rendition = record.rendition { out.signed(rendition) }
        if let iFrameVariant = record.iFrameVariant { out.signed(iFrameVariant) }
        if let copy = record.copy { out.string(copy) }
        if let msn = record.msn { out.signed(msn) }
        if let part = record.part { out.signed(part) }
        if let upstream = record.upstream {
            out.string(upstream.url)
            if let status = upstream.status { out.signed(status) }
            if let connect = upstream.connect { out.double(connect) }
            if let firstByte = upstream.firstByte { out.double(firstByte) }
            if let total = upstream.total { out.double(total) }
            if let error = upstream.error { out.string(error) }
        }
        out.strings(record.matchedRules)
        if let response = record.decidingRules.response { out.string(response) }
        if let delay = record.decidingRules.delay { out.string(delay) }
        out.strings(record.decidingRules.content)
        out.actions(record.actions)
        if let status = record.status { out.signed(status) }
        out.signed(record.bytesSent)
        out.unsigned(UInt64(endings.firstIndex(of: record.ending) ?? 0))
        out.double(record.duration)
        out.headers(record.requestHeaders)
        out.headers(record.responseHeaders)
        if let version = record.httpVersion { out.string(version) }
        if let pathway = record.pathway { out.string(pathway) }
        if let link = record.link {
            out.double(link.latency)
            out.double(link.waited)
            out.double(link.stalled)
        }
        if let cmcd = record.cmcd {
            out.string(cmcd.text)
            out.strings(cmcd.carriages)
            out.strings(cmcd.findings ?? [])
        }
    }

    /// The record `bytes` hold, or nil when they are not one `encode` wrote.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> RequestRecord? {
        var reader = Reader(bytes: bytes)
        guard let id = reader.unsigned(), let session = reader.string(), let present = reader.unsigned(),
            let time = reader.double(), let client = reader.string(), let method = reader.string(), let path = reader.string()
        else { return nil }
        func has(_ field: Field) -> Bool { present & (1 << field.rawValue) != 0 }
        var record = RequestRecord(
            id: id, time: Date(timeIntervalSinceReferenceDate: time), session: session, client: client, method: method, path: path)
        if has(.kind) { guard let kind = reader.unsigned(), kind < kinds.count else { return nil }; record.kind = kinds[Int(kind)] }
        if has(.variant) { guard let value = reader.signed() else { return nil }; record.variant = value }
        if has(.rendition) { guard let value = reader.signed() else { return nil }; record.rendition = value }
        if has(.iFrameVariant) { guard let value = reader.signed() else { return nil }; record.iFrameVariant = value }
        if has(.copy) { guard let copy = reader.string() else { return nil }; record.copy = copy }
        if has(.msn) { guard let value = reader.signed() else { return nil }; record.msn = value }
        if has(.part) { guard let value = reader.signed() else { return nil }; record.part = value }
        if has(.upstream) {
            guard let url = reader.string() else { return nil }
            var upstream = RequestRecord.Upstream(url: url)
            if has(.upstreamStatus) { guard let value = reader.signed() else { return nil }; upstream.status = value }
            if has(.connect) { guard let value = reader.double() else { return nil }; upstream.connect = value }
            if has(.firstByte) { guard let value = reader.double() else { return nil }; upstream.firstByte = value }
            if has(.total) { guard let value = reader.double() else { return nil }; upstream.total = value }
            if has(.error) { guard let error = reader.string() else { return nil }; upstream.error = error }
            record.upstream = upstream
        }
        guard let matched = reader.strings() else { return nil }
        record.matchedRules = matched
        if has(.responseRule) { guard let rule = reader.string() else { return nil }; record.decidingRules.response = rule }
        if has(.delayRule) { guard let rule = reader.string() else { return nil }; record.decidingRules.delay = rule }
        guard let content = reader.strings(), let actions = reader.actions() else { return nil }
        record.decidingRules.content = content
        record.actions = actions
        if has(.status) { guard let value = reader.signed() else { return nil }; record.status = value }
        guard let bytesSent = reader.signed(), let ending = reader.unsigned(), ending < endings.count,
            let duration = reader.double(), let requestHeaders = reader.headers(), let responseHeaders = reader.headers()
        else { return nil }
        record.bytesSent = bytesSent
        record.ending = endings[Int(ending)]
        record.duration = duration
        record.requestHeaders = requestHeaders
        record.responseHeaders = responseHeaders
        if has(.httpVersion) { guard let version = reader.string() else { return nil }; record.httpVersion = version }
        if has(.pathway) { guard let pathway = reader.string() else { return nil }; record.pathway = pathway }
        if has(.link) {
            guard let latency = reader.double(), let waited = reader.double(), let stalled = reader.double() else { return nil }
            record.link = RequestRecord.LinkTimes(latency: latency, waited: waited, stalled: stalled)
        }
        if has(.cmcd) {
            guard let text = reader.string(), let carriages = reader.strings(), let findings = reader.strings() else { return nil }
            record.cmcd = RequestRecord.CMCD(text: text, carriages: carriages, findings: findings.isEmpty ? nil : findings)
        }
        return record
    }

    /// The id and whether the session is `session`, read without decoding the rest.
    static func peek(_ bytes: UnsafeRawBufferPointer, session: [UInt8]?) -> (id: UInt64, sessionMatches: Bool)? {
        var reader = Reader(bytes: bytes)
        guard let id = reader.unsigned() else { return nil }
        guard let session else { return (id, true) }
        guard let stored = reader.stringBytes() else { return nil }
        return (id, stored.elementsEqual(session))
    }

    private enum Field: UInt64 {
        case kind, variant, rendition, iFrameVariant, copy, msn, part
        case upstream, upstreamStatus, connect, firstByte, total, error
        case responseRule, delayRule, status, httpVersion, pathway, link, cmcd
    }

    /// An action's kind in a record (its values follow).
    fileprivate enum ActionCode: UInt64 {
        case delay, status, hang, hangFor, throttle, stall, reset, truncate, corrupt, contentType, redirect, rejectRanges
        case content, unknown
    }

    /// Where `walk` puts a record: the primitives differ, strings are the same for both.
    fileprivate protocol ByteSink {
        mutating func unsigned(_ value: UInt64)
        mutating func double(_ value: Double)
        mutating func bytes(_ bytes: UnsafeRawBufferPointer)
    }

    /// Adds up the bytes, writes nothing.
    fileprivate struct Counter: ByteSink {
        var count = 0

        mutating func unsigned(_ value: UInt64) { count += RecordBytes.length(of: value) }
        mutating func double(_ value: Double) { count += 8 }
        mutating func bytes(_ bytes: UnsafeRawBufferPointer) { count += bytes.count }
    }

    /// Writes at a cursor, never past `end`: what does not fit sets `overflowed`.
    fileprivate struct Writer: ByteSink {
        var cursor: UnsafeMutableRawPointer
        let end: UnsafeMutableRawPointer
        var overflowed = false

        mutating func unsigned(_ value: UInt64) {
            guard end - cursor >= RecordBytes.length(of: value) else { return overflowed = true }
            var value = value
            while value >= 0x80 {
                cursor.storeBytes(of: UInt8(truncatingIfNeeded: value) | 0x80, as: UInt8.self)
                cursor += 1
                value >>= 7
            }
            cursor.storeBytes(of: UInt8(value), as: UInt8.self)
            cursor += 1
        }

        mutating func double(_ value: Double) {
            guard end - cursor >= 8 else { return overflowed = true }
            cursor.storeBytes(of: value.bitPattern.littleEndian, as: UInt64.self)
            cursor += 8
        }

        mutating func bytes(_ bytes: UnsafeRawBufferPointer) {
            guard end - cursor >= bytes.count else { return overflowed = true }
            guard let base = bytes.baseAddress else { return }
            cursor.copyMemory(from: base, byteCount: bytes.count)
            cursor += bytes.count
        }
    }

    /// The bytes of `value` as a varint.
    fileprivate static func length(of value: UInt64) -> Int {
        value == 0 ? 1 : (70 - value.leadingZeroBitCount) / 7
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        mutating func unsigned() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while offset < bytes.count, shift < 64 {
                let byte = bytes[offset]
                offset += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }

        mutating func signed() -> Int? {
            guard let raw = unsigned() else { return nil }
            let value = Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
            return Int(exactly: value)
        }

        mutating func double() -> Double? {
            guard bytes.count - offset >= 8 else { return nil }
            var bits: UInt64 = 0
            withUnsafeMutableBytes(of: &bits) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 8])) }
            offset += 8
            return Double(bitPattern: UInt64(littleEndian: bits))
        }

        mutating func stringBytes() -> UnsafeRawBufferPointer? {
            guard let length = unsigned(), length <= UInt64(bytes.count - offset) else { return nil }
            let start = offset
            offset += Int(length)
            return UnsafeRawBufferPointer(rebasing: bytes[start..<offset])
        }

        mutating func string() -> String? {
            stringBytes().map { String(decoding: $0, as: UTF8.self) }
        }

        mutating func strings() -> [String]? {
            guard let count = unsigned(), count <= UInt64(bytes.count - offset) else { return nil }
            var values: [String] = []
            values.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let value = string() else { return nil }
                values.append(value)
            }
            return values
        }

        mutating func actions() -> [RequestRecord.Action]? {
            guard let count = unsigned(), count <= UInt64(bytes.count - offset) else { return nil }
            var actions: [RequestRecord.Action] = []
            actions.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let action = action() else { return nil }
                actions.append(action)
            }
            return actions
        }

        /// One action as `ByteSink.action` wrote it.
        private mutating func action() -> RequestRecord.Action? {
            guard let hasRule = unsigned() else { return nil }
            var rule: String?
            if hasRule == 1 { guard let text = string() else { return nil }; rule = text }
            guard let code = unsigned(), let tag = ActionCode(rawValue: code) else { return nil }
            let kind: RequestRecord.Action.Kind
            switch tag {
            case .delay: guard let seconds = double() else { return nil }; kind = .delay(seconds: seconds)
            case .status: guard let status = signed() else { return nil }; kind = .status(status)
            case .hang: kind = .hang(seconds: nil)
            case .hangFor: guard let seconds = double() else { return nil }; kind = .hang(seconds: seconds)
            case .throttle: guard let rate = signed() else { return nil }; kind = .throttle(bytesPerSecond: rate)
            case .stall: guard let after = signed(), let seconds = double() else { return nil }; kind = .stall(afterBytes: after, seconds: seconds)
            case .reset: guard let cut = cut() else { return nil }; kind = .reset(cut)
            case .truncate: guard let cut = cut() else { return nil }; kind = .truncate(cut)
            case .corrupt: guard let bytes = signed() else { return nil }; kind = .corrupt(bytes: bytes)
            case .contentType: guard let type = string() else { return nil }; kind = .contentType(type)
            case .redirect:
                guard let status = signed(), let hops = signed(), let loop = unsigned() else { return nil }
                kind = .redirect(status: status, hops: hops, loop: loop == 1)
            case .rejectRanges: kind = .rejectRanges
            case .content: guard let name = string() else { return nil }; kind = .content(name)
            case .unknown: guard let words = string() else { return nil }; kind = .unknown(words: words)
            }
            return RequestRecord.Action(kind, rule: rule)
        }

        private mutating func cut() -> RequestRecord.Action.Cut? {
            switch unsigned() {
            case 0: return .beforeHeaders
            case 1: return signed().map { .afterBytes($0) }
            case 2: return double().map { .fraction($0) }
            default: return nil
            }
        }

        mutating func headers() -> [RequestRecord.Header]? {
            guard let count = unsigned(), count <= UInt64(bytes.count - offset) else { return nil }
            var headers: [RequestRecord.Header] = []
            headers.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let name = string(), let value = string() else { return nil }
                headers.append(.init(name, value))
            }
            return headers
        }
    }
}

extension RecordBytes.ByteSink {
    mutating func signed(_ value: Int) {
        let wide = Int64(value)
        unsigned(UInt64(bitPattern: (wide << 1) ^ (wide >> 63)))
    }

    mutating func string(_ value: String) {
        if let done: Void = value.utf8.withContiguousStorageIfAvailable({ utf8(UnsafeRawBufferPointer($0)) }) { return done }
        var copy = value  // not stored as UTF-8 in one piece (bridged): made so
        copy.withUTF8 { utf8(UnsafeRawBufferPointer($0)) }
    }

    /// A string's bytes, cut at `stringLimit` on a character boundary and ended with "…".
    private mutating func utf8(_ utf8: UnsafeRawBufferPointer) {
        guard utf8.count > RecordBytes.stringLimit else {
            unsigned(UInt64(utf8.count))
            bytes(utf8)
            return
        }
        var end = RecordBytes.stringLimit
        while end > 0 && utf8[end] & 0xC0 == 0x80 { end -= 1 }  // not inside a character
        let ellipsis: StaticString = "…"
        unsigned(UInt64(end + ellipsis.utf8CodeUnitCount))
        bytes(UnsafeRawBufferPointer(rebasing: utf8[..<end]))
        bytes(UnsafeRawBufferPointer(start: ellipsis.utf8Start, count: ellipsis.utf8CodeUnitCount))
    }

    mutating func strings(_ values: [String]) {
        unsigned(UInt64(values.count))
        for value in values { string(value) }
    }

    mutating func actions(_ actions: [RequestRecord.Action]) {
        unsigned(UInt64(actions.count))
        for action in actions {
            if let rule = action.rule {
                unsigned(1)
                string(rule)
            } else {
                unsigned(0)
            }
            typealias Code = RecordBytes.ActionCode
            switch action.kind {
            case .delay(let seconds): unsigned(Code.delay.rawValue); double(seconds)
            case .status(let status): unsigned(Code.status.rawValue); signed(status)
            case .hang(nil): unsigned(Code.hang.rawValue)
            case .hang(let seconds?): unsigned(Code.hangFor.rawValue); double(seconds)
            case .throttle(let rate): unsigned(Code.throttle.rawValue); signed(rate)
            case .stall(let after, let seconds): unsigned(Code.stall.rawValue); signed(after); double(seconds)
            case .reset(let cut): unsigned(Code.reset.rawValue); self.cut(cut)
            case .truncate(let cut): unsigned(Code.truncate.rawValue); self.cut(cut)
            case .corrupt(let bytes): unsigned(Code.corrupt.rawValue); signed(bytes)
            case .contentType(let type): unsigned(Code.contentType.rawValue); string(type)
            case .redirect(let status, let hops, let loop):
                unsigned(Code.redirect.rawValue); signed(status); signed(hops); unsigned(loop ? 1 : 0)
            case .rejectRanges: unsigned(Code.rejectRanges.rawValue)
            case .content(let name): unsigned(Code.content.rawValue); string(name)
            case .unknown(let words): unsigned(Code.unknown.rawValue); string(words)
            }
        }
    }

    private mutating func cut(_ cut: RequestRecord.Action.Cut) {
        switch cut {
        case .beforeHeaders: unsigned(0)
        case .afterBytes(let count): unsigned(1); signed(count)
        case .fraction(let fraction): unsigned(2); double(fraction)
        }
    }

    mutating func headers(_ headers: [RequestRecord.Header]) {
        unsigned(UInt64(headers.count))
        for header in headers {
            string(header.name)
            string(header.value)
        }
    }
}
