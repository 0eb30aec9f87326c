import JSON
import SpecReading

/// A link spec written back as JSON, in the spellings `LinkSpecReader` reads: what `GET
/// /api/sessions/{id}/link` echoes of the link that runs. Every value is written out (a profile's
/// rate and latency too), so reading the result gives the same spec; a trace is written by its
/// name (`{"trace": {"file": NAME}}`), not its rows.
public enum LinkSpecWriter {
    public static func json(_ spec: LinkSpec) -> JSONValue {
        var members: [JSONMember] = []
        func add(_ key: String, _ value: JSONValue) { members.append(JSONMember(key: key, value: value)) }
        if let profile = spec.profile { add("profile", .string(profile)) }
        switch spec.capacity {
        case .constant(let rate): add("rate", .string(rate.description))
        case .steps(let steps):
            add("steps", .array(steps.map { .object([
                JSONMember(key: "at", value: duration($0.at)), JSONMember(key: "rate", value: .string($0.rate.description)),
            ]) }))
        case .pattern(let pattern):
            add("pattern", .object([
                JSONMember(key: "shape", value: .string(pattern.shape.rawValue)),
                JSONMember(key: "low", value: .string(pattern.low.description)),
                JSONMember(key: "high", value: .string(pattern.high.description)),
                JSONMember(key: "step", value: duration(pattern.step)),
                JSONMember(key: "levels", value: integer(pattern.levels)),
                JSONMember(key: "repeat", value: .bool(pattern.repeats)),
            ]))
        case .trace(_, let name): add("trace", .object([JSONMember(key: "file", value: .string(name))]))
        }
        add("latency", .object([
            JSONMember(key: "base", value: duration(spec.latency.base)),
            JSONMember(key: "jitter", value: duration(spec.latency.jitter)),
            JSONMember(key: "newConnection", value: duration(spec.latency.newConnection)),
        ]))
        if let bad = spec.badState {
            add("badState", .object([JSONMember(key: "meanGood", value: duration(bad.meanGood)), JSONMember(key: "meanBad", value: duration(bad.meanBad))]))
        }
        if !spec.outages.isEmpty {
            add("outages", .array(spec.outages.map { .object([
                JSONMember(key: "at", value: duration($0.start)), JSONMember(key: "for", value: duration($0.duration)),
            ]) }))
        }
        add("duringOutage", .string(spec.duringOutage.rawValue))
        if let seed = spec.seed { add("seed", .number(Double(seed), text: String(seed))) }
        add("tick", duration(spec.tick))
        return .object(members)
    }

    private static func duration(_ value: Duration) -> JSONValue { .string(ValueText.format(value)) }
    private static func integer(_ value: Int) -> JSONValue { .number(Double(value), text: String(value)) }
}
