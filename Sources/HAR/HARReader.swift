import Chaos
import BundleFormat
import Foundation
import Records
import JSON

/// Reads a HAR's JSON into a `HARLog`. Lenient about what tools leave out or write differently
/// (absent optional fields, `null`, `-1`, `""` for unknown dates, HTTP/2 pseudo-headers), strict about
/// what it needs and about values of the wrong type: those are a `HARImportError` naming the JSON
/// path (`log.entries[12].response.status: expected a number, got a string ("OK")`).
public enum HARReader {
    /// Reads the file at `path` (its name is used in messages).
    public static func read(path: String) throws(HARImportError) -> HARLog {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw HARImportError(file: path, "no such file")
        }
        guard !isDirectory.boolValue else { throw HARImportError(file: path, "is a directory, not a HAR file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HARImportError(file: path, "cannot be read (check its permissions)")
        }
        return try read([UInt8](data), file: path)
    }

    /// Reads HAR bytes; `file` names them in messages.
    public static func read(_ bytes: [UInt8], file: String) throws(HARImportError) -> HARLog {
        if bytes.isEmpty || bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw HARImportError(file: file, "is empty, not a HAR (a HAR is a JSON object {\"log\": {\"entries\": [...]}})")
        }
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes)
        } catch {
            throw HARImportError(file: file, "is not JSON, so not a HAR: \(error.description)")
        }
        var reader = Walker(file: file)
        return try reader.log(root)
    }

    /// The ISO 8601 instants HAR tools write: "2026-11-23T20:14:03.123Z", "…03.123456Z",
    /// "…03+01:00", "…03.123+0100", or without a fraction of a second. nil when it is not one.
    public static func date(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var position = 0
        func number(_ count: Int) -> Int? {
            guard position + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[position..<position + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            position += count
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard position < bytes.count, characters.utf8.contains(bytes[position]) else { return false }
            position += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
              expect("Tt "), let hour = number(2), expect(":"), let minute = number(2),
              expect(":"), let second = number(2) else { return nil }
        var fraction = 0.0
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") || bytes[position] == UInt8(ascii: ",") {
            position += 1
            var scale = 0.1
            let start = position
            while position < bytes.count, (0x30...0x39).contains(bytes[position]) {
                fraction += Double(bytes[position] - 0x30) * scale
                scale /= 10
                position += 1
            }
            guard position > start else { return nil }
        }
        var offset = 0
        if position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                position += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                let sign = bytes[position] == UInt8(ascii: "-") ? -1 : 1
                position += 1
                guard let hours = number(2) else { return nil }
                _ = expect(":")
                let minutes = number(2) ?? 0
                offset = sign * (hours * 3600 + minutes * 60)
            default:
                return nil
            }
        }
        guard position == bytes.count, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.timeZone = TimeZone(secondsFromGMT: 0)
        components.year = year; components.month = month; components.day = day
        components.hour = hour; components.minute = minute; components.second = second
        guard let date = components.date else { return nil }
        return date.addingTimeInterval(fraction - Double(offset))
    }
}

/// Walks the JSON tree with the path of where it is, for messages.
private struct Walker {
    let file: String

    func fail(_ path: String, _ problem: String) -> HARImportError {
        HARImportError(file: file, path: path, problem)
    }

    /// `log.entries[3]` → `log.entries[3].request`
    static func child(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// "a string (\"OK\")", "a number (200)", "an object", …
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let text):
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            return "a string (\"\(shown)\")"
        case .number(_, let text): return "a number (\(text))"
        case .bool(let flag): return "a boolean (\(flag))"
        default: return value.typeName
        }
    }

    /// The members of an object by key (the first of duplicates wins, as browsers read JSON the
    /// other way round but no tool writes duplicates).
    func object(_ value: JSONValue, _ path: String, what: String) throws(HARImportError) -> [String: JSONValue] {
        guard case .object(let members) = value else {
            throw fail(path, "expected \(what), got \(Self.describe(value))")
        }
        var result: [String: JSONValue] = [:]
        for member in members where result[member.key] == nil { result[member.key] = member.value }
        return result
    }

    /// An optional member: nil when absent or null.
    func member(_ object: [String: JSONValue], _ key: String) -> JSONValue? {
        guard let value = object[key] else { return nil }
        if case .null = value { return nil }
        return value
    }

    func string(_ object: [String: JSONValue], _ key: String, _ path: String) throws(HARImportError) -> String? {
        guard let value = member(object, key) else { return nil }
        guard case .string(let text) = value else {
            throw fail(Self.child(path, key), "expected a string, got \(Self.describe(value))")
        }
        return text
    }

    func number(_ object: [String: JSONValue], _ key: String, _ path: String) throws(HARImportError) -> Double? {
        guard let value = member(object, key) else { return nil }
        guard case .number(let number, _) = value else {
            throw fail(Self.child(path, key), "expected a number, got \(Self.describe(value))")
        }
        return number
    }

    /// A size or count: nil when absent or negative (the spec's -1 for unknown).
    func size(_ object: [String: JSONValue], _ key: String, _ path: String) throws(HARImportError) -> Int? {
        guard let value = try number(object, key, path), value >= 0 else { return nil }
        guard value.isFinite, value < 1e15 else { throw fail(Self.child(path, key), "is not a plausible size: \(value)") }
        return Int(value)
    }

    /// A HAR duration in milliseconds → seconds; nil when absent or negative (-1: does not apply).
    func milliseconds(_ object: [String: JSONValue], _ key: String, _ path: String) throws(HARImportError) -> Double? {
        guard let value = try number(object, key, path), value >= 0 else { return nil }
        guard value.isFinite, value < 1e12 else { throw fail(Self.child(path, key), "is not a plausible duration in milliseconds: \(value)") }
        return value / 1000
    }

    /// `[{name, value}]`; items without a name are skipped, a value that is not a string is an error.
    func headers(_ object: [String: JSONValue], _ key: String, _ path: String) throws(HARImportError) -> [Exchange.Header] {
        guard let value = member(object, key) else { return [] }
        let listPath = Self.child(path, key)
        guard case .array(let items) = value else {
            throw fail(listPath, "expected a list of {\"name\", \"value\"}, got \(Self.describe(value))")
        }
        var headers: [Exchange.Header] = []
        for (index, item) in items.enumerated() {
            let itemPath = "\(listPath)[\(index)]"
            let fields = try self.object(item, itemPath, what: "an object {\"name\", \"value\"}")
            guard let name = try string(fields, "name", itemPath), !name.isEmpty else { continue }
            // HTTP/2 pseudo-headers (":status", ":path") as Charles writes them are not headers.
            if name.hasPrefix(":") { continue }
            let text: String
            switch member(fields, "value") {
            case .string(let value)?: text = value
            case .number(_, let value)?: text = value
            case nil: text = ""
            case let other?: throw fail(Self.child(itemPath, "value"), "expected a string, got \(Self.describe(other))")
            }
            headers.append(Exchange.Header(name, text))
        }
        return headers
    }

    mutating func log(_ root: JSONValue) throws(HARImportError) -> HARLog {
        guard case .object = root else {
            throw HARImportError(file: file, "is JSON but not a HAR: the top level is \(Self.describe(root)), not an object {\"log\": {...}}")
        }
        let top = try object(root, "", what: "an object")
        guard let logValue = member(top, "log") else {
            let keys = top.keys.sorted().prefix(5).map { "\"\($0)\"" }.joined(separator: ", ")
            throw HARImportError(file: file, "is JSON but not a HAR: it has no \"log\" object (its keys: \(keys.isEmpty ? "none" : keys))")
        }
        let log = try object(logValue, "log", what: "an object with \"entries\"")
        var creator: String?
        var creatorVersion: String?
        if let creatorValue = member(log, "creator") {
            let fields = try object(creatorValue, "log.creator", what: "an object {\"name\", \"version\"}")
            creator = try string(fields, "name", "log.creator")
            creatorVersion = try string(fields, "version", "log.creator")
        }
        var browser: String?
        if let browserValue = member(log, "browser"), case .object = browserValue {
            let fields = try object(browserValue, "log.browser", what: "an object")
            browser = [try string(fields, "name", "log.browser"), try string(fields, "version", "log.browser")]
                .compactMap { $0 }.joined(separator: " ")
        }
        guard let entriesValue = member(log, "entries") else {
            throw fail("log.entries", "is missing: a HAR lists its requests there")
        }
        guard case .array(let items) = entriesValue else {
            throw fail("log.entries", "expected a list of entries, got \(Self.describe(entriesValue))")
        }
        guard !items.isEmpty else {
            throw fail("log.entries", "is empty: the HAR holds no requests (was it saved before the page loaded anything?)")
        }
        var entries: [HAREntry] = []
        entries.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            entries.append(try entry(item, index: index))
        }
        return HARLog(creator: creator, creatorVersion: creatorVersion, browser: browser, entries: entries)
    }

    func entry(_ value: JSONValue, index: Int) throws(HARImportError) -> HAREntry {
        let path = "log.entries[\(index)]"
        let fields = try object(value, path, what: "an object (one request and its response)")

        var started: Date?
        if let text = try string(fields, "startedDateTime", path), !text.isEmpty {
            guard let date = HARReader.date(text) else {
                throw fail(Self.child(path, "startedDateTime"), "\"\(text)\" is not an ISO 8601 date and time (such as 2026-11-23T20:14:03.123Z)")
            }
            started = date
        }
        let time = try milliseconds(fields, "time", path)

        guard let requestValue = member(fields, "request") else {
            throw fail(Self.child(path, "request"), "is missing: each entry needs the request it records")
        }
        let requestPath = Self.child(path, "request")
        let request = try object(requestValue, requestPath, what: "an object with \"method\" and \"url\"")
        guard let url = try string(request, "url", requestPath) else {
            throw fail(Self.child(requestPath, "url"), "is missing: each request needs its URL")
        }
        guard !url.isEmpty else { throw fail(Self.child(requestPath, "url"), "is empty: each request needs its URL") }
        let method = try string(request, "method", requestPath).flatMap { $0.isEmpty ? nil : $0.uppercased() } ?? "GET"
        let requestHeaders = try headers(request, "headers", requestPath)

        var entry = HAREntry(index: index, started: started, time: time, method: method, url: url,
                             requestHeaders: requestHeaders, status: 0)

        if let responseValue = member(fields, "response") {
            try response(responseValue, path: Self.child(path, "response"), into: &entry)
        } else {
            entry.error = "the HAR has no response for this request"
        }

        if let timingsValue = member(fields, "timings") {
            let timingsPath = Self.child(path, "timings")
            let timings = try object(timingsValue, timingsPath, what: "an object of phases in milliseconds")
            entry.timings = HAREntry.Timings(
                blocked: try milliseconds(timings, "blocked", timingsPath), dns: try milliseconds(timings, "dns", timingsPath),
                connect: try milliseconds(timings, "connect", timingsPath), ssl: try milliseconds(timings, "ssl", timingsPath),
                send: try milliseconds(timings, "send", timingsPath), wait: try milliseconds(timings, "wait", timingsPath),
                receive: try milliseconds(timings, "receive", timingsPath))
        }

        // Chrome: "_fromCache": "memory" | "disk"; Safari: "_fetchType": "Memory Cache" | "Disk Cache".
        if case .string(let cache)? = member(fields, "_fromCache"), !cache.isEmpty { entry.fromCache = true }
        if case .string(let fetch)? = member(fields, "_fetchType"), fetch.lowercased().contains("cache") { entry.fromCache = true }

        // hlschaos's extensions. Read leniently: a tool's private fields never stop an import.
        if case .object(let members)? = member(fields, "_resource") {
            var resource: [String: JSONValue] = [:]
            for item in members where resource[item.key] == nil { resource[item.key] = item.value }
            if case .string(let kind)? = resource["kind"] {
                func integer(_ key: String) -> Int? {
                    if case .number(let value, _)? = resource[key], value >= 0, value < 1e15, value == value.rounded() { return Int(value) }
                    return nil
                }
                var copy: String?
                if case .string(let text)? = resource["copy"] { copy = text }
                entry.resource = HAREntry.ResourceHint(
                    kind: kind, variant: integer("variant"), rendition: integer("rendition"), msn: integer("msn"),
                    part: integer("part"), copy: copy)
            }
        }
        if case .string(let ending)? = member(fields, "_ending") { entry.ending = ending }
        if case .object(let fault)? = member(fields, "_fault"),
           case .array(let actions)? = fault.first(where: { $0.key == "actions" })?.value {
            let decoder = JSONDecoder()
            entry.faultActions = actions.compactMap { try? decoder.decode(RequestRecord.Action.self, from: Data($0.serialized().utf8)) }
        }
        if entry.error == nil, case .string(let comment)? = member(fields, "comment"), entry.status == 0, !comment.isEmpty,
           !comment.hasPrefix("hlschaos:") {
            entry.error = comment
        }
        return entry
    }

    func response(_ value: JSONValue, path: String, into entry: inout HAREntry) throws(HARImportError) {
        let response = try object(value, path, what: "an object with \"status\"")
        guard let status = try number(response, "status", path) else {
            throw fail(Self.child(path, "status"), "is missing: a response needs its status (0 when none arrived)")
        }
        guard status == status.rounded(), status == 0 || (100...999).contains(status) else {
            throw fail(Self.child(path, "status"), "\(status) is not an HTTP status (100 to 999, or 0 when no response arrived)")
        }
        entry.status = Int(status)
        entry.responseHeaders = try headers(response, "headers", path)
        entry.bodySize = try size(response, "bodySize", path)
        if case .number(let transfer, _)? = member(response, "_transferSize"), transfer >= 0, transfer < 1e15 {
            entry.transferSize = Int(transfer)
        }
        if let error = try string(response, "_error", path), !error.isEmpty { entry.error = error }
        // Charles: "_charlesStatus": "COMPLETE" | "EXCEPTION" | "FAILED" | …, the reason in a comment.
        if case .string(let charles)? = member(response, "_charlesStatus"), charles.uppercased() != "COMPLETE", entry.error == nil {
            var reason = "Charles: \(charles)"
            if case .string(let comment)? = member(response, "comment"), !comment.isEmpty { reason += ": \(comment)" }
            entry.error = reason
        }

        guard let contentValue = member(response, "content") else { return }
        let contentPath = Self.child(path, "content")
        let content = try object(contentValue, contentPath, what: "an object with \"size\" and \"mimeType\"")
        entry.contentSize = try size(content, "size", contentPath)
        entry.mimeType = try string(content, "mimeType", contentPath).flatMap { $0.isEmpty || $0 == "x-unknown" ? nil : $0 }
        guard let text = try string(content, "text", contentPath) else { return }
        let encoding = try string(content, "encoding", contentPath)
        switch encoding?.lowercased() {
        case nil, "":
            entry.body = Array(text.utf8)
        case "base64":
            if let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) {
                entry.body = [UInt8](data)
            } else {
                entry.bodyProblem = "\(Self.child(contentPath, "text")) is not valid base64 although \"encoding\" says so"
            }
        case let other?:
            entry.bodyProblem = "\(Self.child(contentPath, "encoding")) is \"\(other)\", which this reader does not know (only base64)"
        }
    }
}
