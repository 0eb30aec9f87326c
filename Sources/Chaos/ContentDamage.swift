import Addressing

/// Damage to non-playlist bodies: AES keys and session-data JSON (the "format error" rows of
/// error-paths §2); content-steering manifests have `SteeringDamage`, which cuts them with `malformJSON`.
public enum ContentDamage {
    /// `key`: a wrong-length key (one byte short; 15 bytes for a 16-byte AES-128 key) or a key of the
    /// right length with every byte changed (decrypts to garbage).
    public static func damageKey(_ key: [UInt8], _ damage: KeyDamage) -> [UInt8] {
        switch damage {
        case .wrongLength:
            return key.isEmpty ? [UInt8](repeating: 0, count: 15) : Array(key.dropLast())
        case .wrongBytes:
            let source = key.isEmpty ? [UInt8](repeating: 0, count: 16) : key
            return source.map { $0 ^ 0x5A }
        }
    }

    /// A JSON body (`sessionData: "malformed"`, `steering: {"malformed": true}`) cut in half, ending in
    /// characters no JSON document can end with.
    public static func malformJSON(_ body: [UInt8]) -> [UInt8] {
        Array(body.prefix(body.count / 2)) + Array("{[,".utf8)
    }

    /// Applies every key / session-data step of a plan to a body, in order; other steps are ignored.
    public static func apply(_ steps: [ContentStep], to body: [UInt8], kind: ResourceKind) -> [UInt8] {
        var result = body
        for step in steps {
            switch (step.action, kind) {
            case (.key(let damage), .key): result = damageKey(result, damage)
            case (.sessionData(.malformed), .sessionData): result = malformJSON(result)
            default: break
            }
        }
        return result
    }
}
