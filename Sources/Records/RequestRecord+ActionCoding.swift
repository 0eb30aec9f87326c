import JSON

/// An action's JSON: `{"kind": "delay", "rule": "slow/seg", "seconds": 2, "words": "delay 2s"}`.
/// Values are named plainly and present only where the kind has them (docs/records.md lists them).
/// `words` is written for people and ignored when read; a record written before actions were data
/// holds a string instead, read as an action of kind `unknown` with that string as its words.
extension RequestRecord.Action: Codable {
    enum Key: String, CodingKey {
        case kind, rule, seconds, status, bytesPerSecond, afterBytes, fraction, bytes, hops, loop, contentType
        case beforeHeaders, words
    }

    /// A value of an action's JSON.
    enum Value {
        case int(Int), double(Double), string(String), bool(Bool)
    }

    /// The members of the action's JSON, in order: kind, rule, the values, words. The one
    /// description of the layout, for `Codable` and for the HAR export's ordered JSON (`json`).
    var members: [(Key, Value)] {
        var members: [(Key, Value)] = [(.kind, .string(name))]
        if let rule { members.append((.rule, .string(rule))) }
        switch kind {
        case .delay(let seconds): members.append((.seconds, .double(seconds)))
        case .status(let status): members.append((.status, .int(status)))
        case .hang(let seconds): if let seconds { members.append((.seconds, .double(seconds))) }
        case .throttle(let rate): members.append((.bytesPerSecond, .int(rate)))
        case .stall(let after, let seconds): members += [(.afterBytes, .int(after)), (.seconds, .double(seconds))]
        case .reset(let cut), .truncate(let cut):
            switch cut {
            case .beforeHeaders: members.append((.beforeHeaders, .bool(true)))
            case .afterBytes(let count): members.append((.afterBytes, .int(count)))
            case .fraction(let fraction): members.append((.fraction, .double(fraction)))
            }
        case .corrupt(let bytes): members.append((.bytes, .int(bytes)))
        case .contentType(let type): members.append((.contentType, .string(type)))
        case .redirect(let status, let hops, let loop): members += [(.status, .int(status)), (.hops, .int(hops)), (.loop, .bool(loop))]
        case .rejectRanges, .content, .unknown: break
        }
        members.append((.words, .string(words)))
        return members
    }

    /// The action's JSON in its fixed member order, for writers of ordered JSON (the HAR export).
    public var json: JSONValue {
        .object(members.map { key, value -> (String, JSONValue) in
            let json: JSONValue = switch value {
            case .int(let number): .int(number)
            case .double(let number): .double(number)
            case .string(let text): .string(text)
            case .bool(let flag): .bool(flag)
            }
            return (key.rawValue, json)
        })
    }

    public func encode(to encoder: any Encoder) throws {
        var out = encoder.container(keyedBy: Key.self)
        for (key, value) in members {
            switch value {
            case .int(let number): try out.encode(number, forKey: key)
            case .double(let number): try out.encode(number, forKey: key)
            case .string(let text): try out.encode(text, forKey: key)
            case .bool(let flag): try out.encode(flag, forKey: key)
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        if let legacy = try? decoder.singleValueContainer().decode(String.self) {
            self.init(.unknown(words: legacy), rule: nil)
            return
        }
        let fields = try decoder.container(keyedBy: Key.self)
        let rule = try fields.decodeIfPresent(String.self, forKey: .rule)
        let kind: Kind
        switch try fields.decode(String.self, forKey: .kind) {
        case "delay": kind = .delay(seconds: try fields.decode(Double.self, forKey: .seconds))
        case "status": kind = .status(try fields.decode(Int.self, forKey: .status))
        case "hang": kind = .hang(seconds: try fields.decodeIfPresent(Double.self, forKey: .seconds))
        case "throttle": kind = .throttle(bytesPerSecond: try fields.decode(Int.self, forKey: .bytesPerSecond))
        case "stall":
            kind = .stall(afterBytes: try fields.decode(Int.self, forKey: .afterBytes),
                          seconds: try fields.decode(Double.self, forKey: .seconds))
        case "reset": kind = .reset(try Self.cut(fields))
        case "truncate": kind = .truncate(try Self.cut(fields))
        case "corrupt": kind = .corrupt(bytes: try fields.decode(Int.self, forKey: .bytes))
        case "contentType": kind = .contentType(try fields.decode(String.self, forKey: .contentType))
        case "redirect":
            kind = .redirect(status: try fields.decode(Int.self, forKey: .status), hops: try fields.decode(Int.self, forKey: .hops),
                             loop: try fields.decodeIfPresent(Bool.self, forKey: .loop) ?? false)
        case "rejectRanges": kind = .rejectRanges
        // The one kind whose words are its content: they are all that is known of it.
        case "unknown": kind = .unknown(words: try fields.decode(String.self, forKey: .words))
        case let name: kind = .content(name)
        }
        self.init(kind, rule: rule)
    }

    /// `beforeHeaders: true`, `afterBytes` or `fraction`.
    private static func cut(_ fields: KeyedDecodingContainer<Key>) throws -> Cut {
        if try fields.decodeIfPresent(Bool.self, forKey: .beforeHeaders) == true { return .beforeHeaders }
        if let count = try fields.decodeIfPresent(Int.self, forKey: .afterBytes) { return .afterBytes(count) }
        if let fraction = try fields.decodeIfPresent(Double.self, forKey: .fraction) { return .fraction(fraction) }
        throw DecodingError.keyNotFound(Key.afterBytes, .init(
            codingPath: fields.codingPath,
            debugDescription: "a reset or truncate action needs \"beforeHeaders\": true, \"afterBytes\" or \"fraction\""))
    }
}
