import Addressing
import Chaos
import Foundation
import JSON
import Proxy
import RuleLoading
import Upstream

/// Reads the JSON configuration file (`config.example.json` documents every key) into one value with
/// a part per owner (`AppSettings`). Every problem is reported with the file, the key and what would
/// fix it; keys starting with "//" are comments.
public enum ConfigFile {
    public struct Problems: Error, CustomStringConvertible {
        public var file: String
        public var messages: [String]
        public var description: String {
            messages.map { "\(file): \($0)" }.joined(separator: "\n")
        }
    }

    /// Every key the file may hold (config.example.json documents each).
    public static let keys = [
        "listen", "upstream", "origins", "connectTimeout", "firstByteTimeout", "playlistTimeout",
        "maxPlaylistBytes", "sessionIdleTimeout", "cors", "stripCMCD", "rules", "presets", "logLevel", "shutdownTimeout",
        "requestHeadTimeout", "keepAliveTimeout", "maxClientConnections", "maxOriginConnectionsPerHost", "maxRequestHeadBytes",
        "maxSessions", "maxPresetsPerURL", "engineCacheSize", "playlistHistoryBytes", "rewriteCacheBytes",
        "maxLearnedHosts", "events", "eventsMaxBytes", "recordBufferSize", "control", "controlToken",
        "record", "recordRedact", "recordMaxBytes", "recordings", "forward", "https", "dataDir",
        "resolve", "upstreamCAFile", "link",
    ]

    public static func load(path: String) throws(Problems) -> AppSettings {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problems(file: path, messages: ["cannot read the file (does it exist and is it readable?)"])
        }
        return try parse(Array(data), file: path)
    }

    public static func parse(_ bytes: [UInt8], file: String) throws(Problems) -> AppSettings {
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes)
        } catch {
            throw Problems(file: file, messages: [error.description])
        }
        guard case .object(let members) = root else {
            throw Problems(file: file, messages: ["the configuration must be a JSON object, got \(root.typeName)"])
        }
        var reader = Reader(folder: URL(fileURLWithPath: file).deletingLastPathComponent().path)
        var settings = AppSettings()
        var seen = Set<String>()
        for member in members where !member.key.hasPrefix("//") {
            let key = member.key
            guard seen.insert(key).inserted else {
                reader.problem(key, "appears twice; keep one")
                continue
            }
            reader.apply(key, member.value, to: &settings)
        }
        if !reader.messages.isEmpty { throw Problems(file: file, messages: reader.messages) }
        return settings
    }

    public static func isValidOriginName(_ name: String) -> Bool { ProxyPath.isValidName(name) }

    struct Reader {
        /// The file's folder: a link trace the file names is read relative to it.
        let folder: String
        var messages: [String] = []

        mutating func problem(_ key: String, _ message: String) {
            messages.append("\(key): \(message)")
        }

        mutating func apply(_ key: String, _ value: JSONValue, to settings: inout AppSettings) {
            switch key {
            case "listen":
                listen(value, into: &settings.proxy)
            case "upstream":
                if case .null = value { return }
                guard let text = string(key, value) else { return }
                guard let location = UpstreamLocation(absolute: text) else {
                    return problem(key, "\"\(text)\" is not an absolute http(s) URL, for example \"https://cdn.example.com/live\"")
                }
                settings.proxy.defaultOrigin = location
            case "origins":
                origins(value, into: &settings.proxy)
            case "connectTimeout":
                if let duration = duration(key, value) { settings.proxy.upstream.connectTimeout = duration }
            case "firstByteTimeout":
                if let duration = duration(key, value) { settings.proxy.upstream.firstByteTimeout = duration }
            case "playlistTimeout":
                if let duration = duration(key, value) { settings.proxy.playlistTimeout = duration.seconds }
            case "sessionIdleTimeout":
                if let duration = duration(key, value) { settings.proxy.sessionIdleTimeout = duration.seconds }
            case "maxPlaylistBytes":
                if let number = integer(key, value, 1024...1_000_000_000, unit: "bytes") { settings.proxy.maxPlaylistBytes = number }
            case "shutdownTimeout":
                if let duration = duration(key, value) { settings.proxy.shutdownTimeout = duration.seconds }
            case "requestHeadTimeout":
                if let duration = duration(key, value) { settings.proxy.clients.requestHeadTimeout = duration.seconds }
            case "keepAliveTimeout":
                if let duration = duration(key, value) { settings.proxy.clients.keepAliveTimeout = duration.seconds }
            case "maxClientConnections":
                if let number = integer(key, value, 1...1_000_000, unit: "connections") { settings.proxy.clients.maxConnections = number }
            case "maxOriginConnectionsPerHost":
                if let number = integer(key, value, 1...100_000, unit: "connections") { settings.proxy.upstream.maxConnectionsPerHost = number }
            case "maxRequestHeadBytes":
                // NIO's HTTP parser refuses heads over 80 KB by itself.
                if let number = integer(key, value, 1024...65536, unit: "bytes") { settings.proxy.clients.maxRequestHeadBytes = number }
            case "maxSessions":
                if let number = integer(key, value, 1...10_000_000, unit: "sessions") { settings.proxy.memory.maxSessions = number }
            case "maxPresetsPerURL":
                if let number = integer(key, value, 1...64, unit: "presets") { settings.rules.maxPresetsPerURL = number }
            case "engineCacheSize":
                if let number = integer(key, value, 1...100_000, unit: "engines") { settings.rules.engineCacheSize = number }
            case "playlistHistoryBytes":
                if let number = integer(key, value, 65536...1_000_000_000, unit: "bytes") { settings.proxy.memory.playlistHistoryBytes = number }
            case "rewriteCacheBytes":
                if let number = integer(key, value, 0...100_000_000_000, unit: "bytes") { settings.proxy.memory.rewriteCacheBytes = number }
            case "control":
                if case .null = value { settings.control.listen = .some(nil); return }
                if let text = string(key, value) { settings.control.listen = .some(text) }
            case "controlToken":
                if case .null = value { return }
                if let text = string(key, value) { settings.control.token = text }
            case "events":
                if case .null = value { return }
                if let text = string(key, value) { settings.proxy.eventsFile = text }
            case "record":
                if case .null = value { return }
                if let text = string(key, value) { settings.proxy.recordPath = text }
            case "recordings":
                if let text = string(key, value) { settings.proxy.recordingsDirectory = text }
            case "recordRedact":
                guard case .bool(let flag) = value else { return problem(key, "expected true or false, got \(value.typeName)") }
                settings.proxy.recordRedact = flag
            case "recordMaxBytes":
                if case .null = value { settings.proxy.recordMaxBytes = nil; return }
                if let number = integer(key, value, 1_048_576...Int.max, unit: "bytes") { settings.proxy.recordMaxBytes = number }
            case "eventsMaxBytes":
                if let number = integer(key, value, 1_048_576...1_000_000_000_000, unit: "bytes") { settings.proxy.eventsFileMaxBytes = number }
            case "recordBufferSize":
                if let number = integer(key, value, 100...10_000_000, unit: "records") { settings.proxy.memory.recordBufferSize = number }
            case "maxLearnedHosts":
                if let number = integer(key, value, 0...10_000_000, unit: "hosts") { settings.proxy.memory.maxLearnedHosts = number }
            case "cors":
                guard case .bool(let flag) = value else { return problem(key, "expected true or false, got \(value.typeName)") }
                settings.proxy.cors = flag
            case "stripCMCD":
                guard case .bool(let flag) = value else { return problem(key, "expected true or false, got \(value.typeName)") }
                settings.proxy.stripCMCD = flag
            case "rules":
                ruleFiles(value, into: &settings.rules)
            case "presets":
                if case .null = value { return }
                guard let text = string(key, value) else { return }
                settings.rules.presetDirectory = text
            case "forward":
                forward(value, into: &settings.proxy)
            case "https":
                https(value, into: &settings.proxy)
            case "resolve":
                resolve(value, into: &settings.proxy)
            case "upstreamCAFile":
                if case .null = value { settings.proxy.upstream.extraCAFile = nil; return }
                if let text = string(key, value) { settings.proxy.upstream.extraCAFile = text }
            case "link":
                if case .null = value { settings.proxy.link = nil; return }
                do {
                    settings.proxy.link = LinkChoice(spec: try LinkSetting.read(value, folder: folder, path: "link"), from: "the configuration's \"link\"")
                } catch {
                    for found in error.problems { problem(found.path, found.message) }
                }
            case "dataDir":
                if case .null = value { settings.dataDirectory = nil; return }
                if let text = string(key, value) { settings.dataDirectory = text }
            case "logLevel":
                guard let text = string(key, value) else { return }
                let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
                guard levels.contains(text) else {
                    return problem(key, "\"\(text)\" is not one of \(levels.joined(separator: ", "))")
                }
                settings.logLevel = text
            default:
                let hint = ValueSyntax.suggestion(for: key, in: ConfigFile.keys).map { " (did you mean \"\($0)\"?)" } ?? ""
                problem(key, "unknown key\(hint); keys starting with // are comments")
            }
        }

        /// `"listen": "HOST:PORT"` (an IPv6 host in brackets).
        mutating func listen(_ value: JSONValue, into configuration: inout ProxyConfiguration) {
            guard let text = string("listen", value) else { return }
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard let portText = parts.last, let port = Int(portText), (0...65535).contains(port), parts.count >= 2 else {
                return problem("listen", "\"\(text)\" must be HOST:PORT, for example \"0.0.0.0:8080\"")
            }
            configuration.host = parts.dropLast().joined(separator: ":").trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            configuration.port = port
        }

        /// `"origins": {"NAME": "URL", …}`, reached as `/@NAME/…`.
        mutating func origins(_ value: JSONValue, into configuration: inout ProxyConfiguration) {
            guard case .object(let origins) = value else {
                return problem("origins", "expected an object of NAME: URL, got \(value.typeName)")
            }
            for origin in origins where !origin.key.hasPrefix("//") {
                let path = "origins.\(origin.key)"
                guard ProxyPath.isValidName(origin.key) else {
                    problem(path, "origin names use letters, digits, '.', '_' or '-' (they appear in URLs as /@NAME/)")
                    continue
                }
                guard case .string(let text) = origin.value, let location = UpstreamLocation(absolute: text) else {
                    problem(path, "expected an absolute http(s) URL string")
                    continue
                }
                configuration.origins[origin.key] = location
            }
        }

        /// `"rules": ["PATH", …]`.
        mutating func ruleFiles(_ value: JSONValue, into rules: inout RuleBook.Settings) {
            guard case .array(let items) = value else {
                return problem("rules", "expected a list of rule file paths, got \(value.typeName)")
            }
            rules.ruleFiles = items.compactMap { item in
                if case .string(let path) = item { return path }
                problem("rules", "every entry must be a file path string")
                return nil
            }
        }

        mutating func string(_ key: String, _ value: JSONValue) -> String? {
            guard case .string(let text) = value else {
                problem(key, "expected a string, got \(value.typeName)")
                return nil
            }
            return text
        }

        mutating func integer(_ key: String, _ value: JSONValue, _ range: ClosedRange<Int>, unit: String) -> Int? {
            guard case .number(let number, _) = value, number == number.rounded(),
                  number >= Double(range.lowerBound), number <= Double(range.upperBound)
            else {
                problem(key, "expected a whole number of \(unit) between \(range.lowerBound) and \(range.upperBound)")
                return nil
            }
            return Int(number)
        }

        mutating func duration(_ key: String, _ value: JSONValue) -> Duration? {
            guard case .string(let text) = value, let duration = ValueSyntax.duration(text), duration > .zero else {
                problem(key, "expected a duration such as \"500ms\", \"5s\" or \"2m\"")
                return nil
            }
            return duration
        }
    }
}
