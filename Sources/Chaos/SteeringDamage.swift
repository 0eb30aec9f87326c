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

    /// `manifest` with the fields replaced and, with `malformed`, cut; a body that is no JSON object
    /// keeps its bytes (only `malformed` applies to it).
    public func applied(to manifest: [UInt8]) -> [UInt8] {
        var body = manifest
        if changesFields, case .object(var members)? = try? JSONValue.parse(manifest) {
            apply(to: &members)
            body = Array(JSONValue.object(members).serialized().utf8)
        }
        return malformed ? ContentDamage.malformJSON(body) : body
    }

    /// Whether a field is replaced (not only `malformed`).
    public var changesFields: Bool { ttl != nil || priority != nil || reloadURI != nil }

    /// Replaces the fields given in a manifest's members (adding those it lacks).
    public func apply(to members: inout [JSONMember]) {
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
