import JSON

/// `steering`: damage to a content-steering manifest (the JSON a player reloads every `TTL`
/// seconds, draft-pantos-content-steering §4), each field given replacing the origin's.
public struct SteeringDamage: Sendable, Equatable {
    /// `TTL`, in seconds: 0 or 1 makes a reload storm.
    public var ttl: Int?
    /// `PATHWAY-PRIORITY`: a pathway left out is one the server no longer wants used.
    public var priority: [String]?
    /// `RELOAD-URI`, as written (relative to the manifest's URL): where the next reload goes.
    public var reloadURI: String?
    /// The manifest cut in half and ended with characters no JSON document can end with.
    public var malformed: Bool

    public init(ttl: Int? = nil, priority: [String]? = nil, reloadURI: String? = nil, malformed: Bool = false) {
        self.ttl = ttl; self.priority = priority; self.reloadURI = reloadURI; self.malformed = malformed
    }

    /// `manifest` with the fields replaced and, with `malformed`, cut (`apply` with this damage alone).
    public func applied(to manifest: [UInt8]) -> [UInt8] {
        Self.apply([self], to: manifest)
    }

    /// `manifest` after `damages`, in order: their fields replaced, then `RELOAD-URI` passed through
    /// `reloadURI` (which returns nil to keep it), then the whole cut when one says `malformed`. The
    /// bytes are kept when no field is replaced and there is no `RELOAD-URI` to pass through, and
    /// when the manifest is no JSON object (only `malformed` applies to it).
    public static func apply(_ damages: [SteeringDamage], to manifest: [UInt8], reloadURI: ((String) -> String?)? = nil) -> [UInt8] {
        var body = manifest
        let changesFields = damages.contains(where: \.changesFields)
        if changesFields || reloadURI != nil, case .object(var members)? = try? JSONValue.parse(manifest),
           changesFields || (reloadURI != nil && members.contains { $0.key == "RELOAD-URI" }) {
            for damage in damages { damage.apply(to: &members) }
            if let reloadURI {
                for index in members.indices where members[index].key == "RELOAD-URI" {
                    guard case .string(let uri) = members[index].value, let written = reloadURI(uri) else { continue }
                    members[index].value = .string(written)
                }
            }
            body = Array(JSONValue.object(members).serialized().utf8)
        }
        return damages.contains(where: \.malformed) ? ContentDamage.malformJSON(body) : body
    }

    /// Whether a field is replaced (not only `malformed`).
    var changesFields: Bool { ttl != nil || priority != nil || reloadURI != nil }

    /// Replaces the fields given in a manifest's members (adding those it lacks).
    func apply(to members: inout [JSONMember]) {
        if let ttl { Self.set("TTL", .int(ttl), in: &members) }
        if let reloadURI { Self.set("RELOAD-URI", .string(reloadURI), in: &members) }
        if let priority { Self.set("PATHWAY-PRIORITY", .array(priority.map(JSONValue.string)), in: &members) }
    }

    /// Sets the first member named `key` and drops any later duplicate; appends it when absent.
    static func set(_ key: String, _ value: JSONValue, in members: inout [JSONMember]) {
        var found = false
        members = members.compactMap { member in
            guard member.key == key else { return member }
            defer { found = true }
            return found ? nil : JSONMember(key: key, value: value)
        }
        if !found { members.append(JSONMember(key: key, value: value)) }
    }
}
