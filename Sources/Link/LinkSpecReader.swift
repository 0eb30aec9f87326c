import JSON
import SpecReading

/// Reads a link spec from JSON and reports every problem at once, each with its JSON path and what
/// would fix it (with the rule files' reader, `TreeReader`):
///
///     {"rate": "2Mbps"}
///     {"profile": "slow-3g", "outages": [{"at": "30s", "for": "10s"}]}
///     {"steps": [{"at": "0s", "rate": "8Mbps"}, {"at": "30s", "rate": "lowest variant - 20%"}],
///      "latency": {"base": "80ms", "jitter": "20ms"}, "badState": {"meanGood": "20s", "meanBad": "1s"}}
///     {"pattern": {"shape": "square", "low": "600kbps", "high": "4Mbps", "step": "10s"}}
///     {"trace": {"file": "rules/traces/commute.csv"}}
///
/// `traceFile` returns a trace file's bytes, or nil when it cannot be read: the reader does no I/O.
public enum LinkSpecReader {
    public static let keys = ["profile", "rate", "steps", "pattern", "trace", "latency", "badState", "outages",
                              "duringOutage", "seed", "tick"]
    static let capacityKeys = ["rate", "steps", "pattern", "trace"]
    static let stepKeys = ["at", "rate"]
    static let patternKeys = ["shape", "low", "high", "step", "levels", "repeat"]
    static let traceKeys = ["file", "text", "format"]
    static let latencyKeys = ["base", "jitter", "newConnection"]
    static let badStateKeys = ["meanGood", "meanBad"]
    static let outageKeys = ["at", "for"]
    /// Bounds that keep a spec's state small: the scheduler holds every step and outage.
    public static let maximumSteps = 10_000
    public static let maximumOutages = 1000
    /// A bad-state stay shorter than this on average would cut every tick into pieces.
    public static let minimumMeanStay: Duration = .milliseconds(10)

    public static func read(_ value: JSONValue, path: String = "$",
                            traceFile: (String) -> [UInt8]? = { _ in nil }) throws(LinkSpecError) -> LinkSpec {
        let (spec, problems) = withoutActuallyEscaping(traceFile) { traceFile in
            var reader = TreeReader(file: nil, loadFile: traceFile)
            return (reader.linkSpec(value, path), reader.problems)
        }
        if let spec, problems.isEmpty { return spec }
        throw LinkSpecError(problems: problems)
    }

    /// The longest cut of a link the control API takes at once.
    public static let maximumCut: Duration = .seconds(3600)

    /// Reads a cut of the link, `{"for": "10s"}` (at most `maximumCut`).
    public static func readCut(_ value: JSONValue) throws(LinkSpecError) -> Duration {
        var reader = TreeReader(file: nil)
        var cut: Duration?
        if let members = reader.object(value, "$", allowed: ["for"]) {
            if let (value, path) = members["for"] {
                if let read = reader.duration(value, path) {
                    if read <= .zero || read > maximumCut {
                        reader.report(path, "a cut lasts more than 0s and at most 1h")
                    } else {
                        cut = read
                    }
                }
            } else {
                reader.report("$", #"say how long the link is down: {"for": "10s"}"#)
            }
        }
        if let cut, reader.problems.isEmpty { return cut }
        throw LinkSpecError(problems: reader.problems)
    }

    /// Reads a spec from JSON text (a file, an API body).
    public static func read(bytes: [UInt8], traceFile: (String) -> [UInt8]? = { _ in nil }) throws(LinkSpecError) -> LinkSpec {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw LinkSpecError("$", error.description)
        }
        return try read(value, traceFile: traceFile)
    }
}

/// The link spec's shapes, read by the house's tree reader: a rule file's `"link"` is read here with
/// the rule file's name in its problems.
extension TreeReader {
    /// A link spec at `path`; a trace file it names is read through `loadFile`.
    public mutating func linkSpec(_ value: JSONValue, _ path: String) -> LinkSpec? {
        guard let members = object(value, path, allowed: LinkSpecReader.keys) else { return nil }
        let before = problems.count
        var profile: LinkProfile?
        if let (value, profilePath) = members["profile"], let name = string(value, profilePath) {
            profile = LinkProfile.named(name)
            if profile == nil {
                let hint = Suggestions.nearest(to: name, in: LinkProfile.names).map { " (did you mean \"\($0)\"?)" } ?? ""
                report(profilePath, "unknown profile \"\(name)\"\(hint); the profiles are \(Self.quoted(LinkProfile.names))")
            }
        }
        let given = LinkSpecReader.capacityKeys.filter { members[$0] != nil }
        for extra in given.dropFirst() {
            report(members[extra]!.1, "give one capacity only: \"\(given[0])\" is already given (one of \(Self.quoted(LinkSpecReader.capacityKeys)))")
        }
        var capacity: LinkSpec.Capacity?
        switch given.first {
        case "rate":
            let (value, ratePath) = members["rate"]!
            if let rate = rateSpec(value, ratePath, zero: "a constant rate of 0 never delivers anything (use \"outages\" for a link that is down)") {
                capacity = .constant(rate)
            }
        case "steps": capacity = steps(members["steps"]!.0, members["steps"]!.1)
        case "pattern": capacity = pattern(members["pattern"]!.0, members["pattern"]!.1)
        case "trace": capacity = trace(members["trace"]!.0, members["trace"]!.1)
        default:
            if let profile {
                capacity = .constant(.absolute(profile.rate))
            } else if members["profile"] == nil {
                report(path, "the link has no capacity: give one of \(Self.quoted(LinkSpecReader.capacityKeys)), or a \"profile\"")
            }
        }
        var latency = profile?.latency ?? .none
        if let (value, latencyPath) = members["latency"], let read = self.latency(value, latencyPath) { latency = read }
        var badState: BadStateModel?
        if let (value, badPath) = members["badState"] { badState = self.badState(value, badPath) }
        var outages: [Outage] = []
        if let (value, outagesPath) = members["outages"] { outages = self.outages(value, outagesPath) ?? [] }
        var policy = OutagePolicy.wait
        if let (value, policyPath) = members["duringOutage"],
           let word = keyword(value, policyPath, "duringOutage", in: OutagePolicy.allCases.map(\.rawValue)) {
            policy = OutagePolicy(rawValue: word)!
        }
        var seed: UInt64?
        if let (value, seedPath) = members["seed"] { seed = self.seed(value, seedPath) }
        var tick = Link.defaultTick
        if let (value, tickPath) = members["tick"], let read = duration(value, tickPath) {
            if Link.tickRange.contains(read) {
                tick = read
            } else {
                report(tickPath, "a tick must be between 1ms and 50ms (the link's shaping granularity), got \"\(ValueText.format(read))\"")
            }
        }
        guard let capacity, problems.count == before else { return nil }
        return LinkSpec(profile: profile?.name, capacity: capacity, latency: latency, badState: badState, outages: outages,
                        duringOutage: policy, seed: seed, tick: tick, path: path)
    }

    // MARK: - capacity

    mutating func steps(_ value: JSONValue, _ path: String) -> LinkSpec.Capacity? {
        guard case .array(let elements) = value else {
            report(path, "expected a list of steps such as [{\"at\": \"0s\", \"rate\": \"8Mbps\"}, {\"at\": \"30s\", \"rate\": \"600kbps\"}], got \(value.typeName)")
            return nil
        }
        guard !elements.isEmpty else {
            report(path, "the list of steps is empty (give at least {\"at\": \"0s\", \"rate\": …})")
            return nil
        }
        guard elements.count <= LinkSpecReader.maximumSteps else {
            report(path, "\(elements.count) steps; at most \(LinkSpecReader.maximumSteps) (use a trace for a long recording)")
            return nil
        }
        let before = problems.count
        var steps: [LinkSpec.Step] = []
        for (offset, element) in elements.enumerated() {
            let stepPath = "\(path)[\(offset)]"
            guard let members = object(element, stepPath, allowed: LinkSpecReader.stepKeys) else { continue }
            var at: Duration?
            if let (value, atPath) = required(members, "at", stepPath, "when the step starts, such as \"30s\""),
               let read = duration(value, atPath) {
                if offset == 0, read != .zero {
                    report(atPath, "the first step must be at \"0s\" (the link needs a rate from the start), got \"\(ValueText.format(read))\"")
                } else if let last = steps.last, read <= last.at {
                    report(atPath, "\"\(ValueText.format(read))\" is not after the previous step's \"\(ValueText.format(last.at))\" (steps must be in time order)")
                } else {
                    at = read
                }
            }
            var rate: RateSpec?
            if let (value, ratePath) = required(members, "rate", stepPath, "the rate from then on, such as \"600kbps\"") {
                rate = self.rateSpec(value, ratePath, zero: nil)
            }
            if let at, let rate { steps.append(LinkSpec.Step(at: at, rate: rate)) }
        }
        guard problems.count == before else { return nil }
        if steps.allSatisfy({ $0.rate == .absolute(LinkRate(bitsPerSecond: 0)) }) {
            report(path, "every step's rate is 0: the link would never deliver anything (use \"outages\" for a link that is down)")
            return nil
        }
        return .steps(steps)
    }

    mutating func pattern(_ value: JSONValue, _ path: String) -> LinkSpec.Capacity? {
        guard let members = object(value, path, allowed: LinkSpecReader.patternKeys) else { return nil }
        let before = problems.count
        var shape: CapacityPattern.Shape?
        if let (value, shapePath) = required(members, "shape", path, "one of \(Self.quoted(CapacityPattern.Shape.allCases.map(\.rawValue)))"),
           let word = keyword(value, shapePath, "shape", in: CapacityPattern.Shape.allCases.map(\.rawValue)) {
            shape = CapacityPattern.Shape(rawValue: word)
        }
        var low: RateSpec?
        if let (value, lowPath) = required(members, "low", path, "the lowest rate, such as \"600kbps\"") {
            low = rateSpec(value, lowPath, zero: nil)
        }
        var high: RateSpec?
        if let (value, highPath) = required(members, "high", path, "the highest rate, such as \"4Mbps\"") {
            high = rateSpec(value, highPath, zero: "the high rate must be above 0")
        }
        var step: Duration?
        if let (value, stepPath) = required(members, "step", path, "how long each level lasts, such as \"10s\""),
           let read = duration(value, stepPath) {
            if read < .milliseconds(1) {
                report(stepPath, "a step must last at least 1ms (how long each level lasts, such as \"10s\")")
            } else {
                step = read
            }
        }
        var levels = CapacityPattern.defaultLevels
        if let (value, levelsPath) = members["levels"] {
            if shape == .square {
                report(levelsPath, "a square wave has two levels, high and low: leave \"levels\" out")
            } else if let read = integer(value, levelsPath, "levels", in: CapacityPattern.levelRange) {
                levels = read
            }
        }
        var repeats = true
        if let (value, repeatPath) = members["repeat"], let read = bool(value, repeatPath) { repeats = read }
        if let shape, let read = step {
            // The period is counted in nanoseconds: an `Int64` must hold it (and a few of them).
            let count = CapacityPattern(shape: shape, low: .limit, high: .limit, step: read, levels: levels).rates.count
            if read.linkNanos > ValueText.maximumNanos / Int64(count) {
                report(JSONPath.child(path, "step"), "the pattern's period, \(count) steps of \(ValueText.format(read)), is over about 31 years: use a shorter step")
                step = nil
            }
        }
        if case .absolute(let lowRate)? = low, case .absolute(let highRate)? = high, highRate <= lowRate {
            report(JSONPath.child(path, "high"), "high (\(highRate)) must be above low (\(lowRate))")
        }
        guard let shape, let low, let high, let step, problems.count == before else { return nil }
        return .pattern(LinkSpec.Pattern(shape: shape, low: low, high: high, step: step, levels: levels, repeats: repeats))
    }

    mutating func trace(_ value: JSONValue, _ path: String) -> LinkSpec.Capacity? {
        guard let members = object(value, path, allowed: LinkSpecReader.traceKeys) else { return nil }
        var format: LinkTrace.Format?
        if let (value, formatPath) = members["format"],
           let word = keyword(value, formatPath, "format", in: LinkTrace.Format.allCases.map(\.rawValue)) {
            format = LinkTrace.Format(rawValue: word)
        } else if members["format"] != nil {
            return nil
        }
        switch (members["file"], members["text"]) {
        case (let file?, nil):
            guard let name = string(file.0, file.1) else { return nil }
            guard let bytes = loadFile(name) else {
                report(file.1, "cannot read the trace file \"\(name)\" (check the path and that the file is readable)")
                return nil
            }
            return parsed(bytes, format ?? .guess(fileName: name), name, file.1)
        case (nil, let text?):
            guard let body = string(text.0, text.1) else { return nil }
            return parsed(Array(body.utf8), format ?? .mahimahi, "the trace text", text.1)
        case (_?, let text?):
            report(text.1, "give the trace as \"file\" or as \"text\", not both")
            return nil
        case (nil, nil):
            report(path, "missing the trace: give \"file\" (a path) or \"text\" (the trace itself)")
            return nil
        }
    }

    private mutating func parsed(_ bytes: [UInt8], _ format: LinkTrace.Format, _ name: String, _ path: String) -> LinkSpec.Capacity? {
        switch LinkTrace.parse(bytes, format: format, name: name) {
        case .success(let trace): return .trace(trace, name: name)
        case .failure(let error):
            report(path, error.description)
            return nil
        }
    }

    // MARK: - latency, stalls, outages

    mutating func latency(_ value: JSONValue, _ path: String) -> LinkLatency? {
        if case .string = value { return duration(value, path).map { LinkLatency(base: $0) } }
        guard let members = object(value, path, allowed: LinkSpecReader.latencyKeys) else { return nil }
        let before = problems.count
        var base = Duration.zero
        if let (value, basePath) = required(members, "base", path, "the latency before each response head, such as \"100ms\"") {
            base = duration(value, basePath) ?? .zero
        }
        var jitter = Duration.zero
        if let (value, jitterPath) = members["jitter"], let read = duration(value, jitterPath) {
            if read > base {
                report(jitterPath, "jitter (\(ValueText.format(read))) is more than the base latency (\(ValueText.format(base))): a latency cannot go below 0")
            } else {
                jitter = read
            }
        }
        var newConnection: Duration?
        if let (value, connectionPath) = members["newConnection"] { newConnection = duration(value, connectionPath) }
        guard problems.count == before else { return nil }
        return LinkLatency(base: base, jitter: jitter, newConnection: newConnection)
    }

    mutating func badState(_ value: JSONValue, _ path: String) -> BadStateModel? {
        guard let members = object(value, path, allowed: LinkSpecReader.badStateKeys) else { return nil }
        var means: [Duration] = []
        for (key, what) in [("meanGood", "how long the link stays good on average, such as \"20s\""),
                            ("meanBad", "how long a stall lasts on average, such as \"1s\"")] {
            guard let (value, meanPath) = required(members, key, path, what), let read = duration(value, meanPath) else { continue }
            if read < LinkSpecReader.minimumMeanStay {
                report(meanPath, "\(key) must be at least \(ValueText.format(LinkSpecReader.minimumMeanStay)), got \"\(ValueText.format(read))\"")
                continue
            }
            means.append(read)
        }
        guard means.count == 2 else { return nil }
        return BadStateModel(meanGood: means[0], meanBad: means[1])
    }

    mutating func outages(_ value: JSONValue, _ path: String) -> [Outage]? {
        guard case .array(let elements) = value else {
            report(path, "expected a list of outages such as [{\"at\": \"30s\", \"for\": \"10s\"}], got \(value.typeName)")
            return nil
        }
        guard elements.count <= LinkSpecReader.maximumOutages else {
            report(path, "\(elements.count) outages; at most \(LinkSpecReader.maximumOutages)")
            return nil
        }
        var outages: [Outage] = []
        for (offset, element) in elements.enumerated() {
            let outagePath = "\(path)[\(offset)]"
            guard let members = object(element, outagePath, allowed: LinkSpecReader.outageKeys) else { continue }
            let at = required(members, "at", outagePath, "when the link goes down, such as \"30s\"").flatMap { duration($0.0, $0.1) }
            var length: Duration?
            if let (value, forPath) = required(members, "for", outagePath, "how long it stays down, such as \"10s\""),
               let read = duration(value, forPath) {
                if read == .zero { report(forPath, "an outage of 0s does nothing (give how long the link stays down, such as \"10s\")") } else { length = read }
            }
            if let at, let length { outages.append(Outage(start: at, duration: length)) }
        }
        return outages.count == elements.count ? outages : nil
    }

    // MARK: - values

    /// A rate: absolute ("2Mbps") or relative to the ladder ("variant 2 + 10%"). `zero` is the
    /// message for a rate of 0 where it is meaningless (nil where 0 is allowed).
    mutating func rateSpec(_ value: JSONValue, _ path: String, zero: String?) -> RateSpec? {
        guard let text = string(value, path) else { return nil }
        if LadderRate.looksRelative(text) { return reported(LadderRate.parse(text), path).map(RateSpec.ladder) }
        guard let rate = reported(ValueText.rate(text), path).map(LinkRate.init) else { return nil }
        if rate.bitsPerSecond == 0, let zero {
            report(path, zero)
            return nil
        }
        return .absolute(rate)
    }
}
