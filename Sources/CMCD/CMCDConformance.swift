/// One request of a session as the conformance checks read it: when (seconds since the session
/// began), what the proxy knows the object is (a playlist is `m`, a segment `v`/`a`/`av`, an init
/// section `i`, a key `k`; nil when it does not know), and the CMCD it carried (nil for none).
public struct CMCDObservation: Sendable, Hashable {
    public var time: Double
    public var objectTypeHint: CMCDObjectType?
    public var cmcd: CMCDData?

    public init(time: Double, objectTypeHint: CMCDObjectType?, cmcd: CMCDData?) {
        self.time = time
        self.objectTypeHint = objectTypeHint
        self.cmcd = cmcd
    }
}

/// What a session's player sent as CMCD, measured against CTA-5004/5004-A: which keys on which object
/// types, and the issues — each kind once, with how many requests showed it and the first.
public struct CMCDConformance: Sendable, Hashable {
    public var requests = 0
    public var requestsWithCMCD = 0
    /// The versions the requests said they use (1 when they said none).
    public var versions: [Int] = []
    /// Per object type (the request's `ot`, else the proxy's hint; nil when neither knows), the keys sent.
    public var keyUse: [CMCDKeyUse] = []
    public var issues: [CMCDIssue] = []
    /// Issues of further kinds beyond `maxIssues`, not listed.
    public var issuesLeftOut = 0

    /// The checks over a session's requests, in the order they were made. Pure and bounded: one pass,
    /// at most `maxIssues` kinds of issue kept. `stalls`: the stalls known from outside the CMCD
    /// (the driver's report, a segment held longer than the buffer claimed); one the player never
    /// said is an issue (`unsaidStalls`).
    public static func check(_ observations: [CMCDObservation], stalls: [CMCDKnownStall] = [], maxIssues: Int = 100) -> CMCDConformance {
        var checker = Checker(maxIssues: maxIssues)
        for (index, observation) in observations.enumerated() { checker.read(observation, index: index) }
        if let issue = unsaidStallIssue(observations, stalls: stalls) { checker.append(issue) }
        return checker.result(requests: observations.count)
    }

    /// Whether nothing is wrong.
    public var isClean: Bool { issues.isEmpty }
}

/// The keys a player sent on one object type, and on how many of its requests each.
public struct CMCDKeyUse: Sendable, Hashable {
    public var objectType: CMCDObjectType?
    public var requests: Int
    public var keys: [String: Int]
}

/// One kind of departure from the specification in a session.
public struct CMCDIssue: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// A parse or value finding of the requests themselves.
        case finding(CMCDProblem, CMCDCarriage)
        /// The key was not sent where the specification expects it.
        case missing
        /// The key was sent on an object type it is not defined for.
        case notForObjectType
        /// `ot` says one type, the request was another.
        case objectTypeDisagrees(sent: CMCDObjectType, actual: CMCDObjectType)
        /// The value is not a multiple of the step the specification rounds it to.
        case notRounded(step: Int, value: Int)
        /// `tb` below `br` for the same object type.
        case topBitrateBelowBitrate(top: Int, bitrate: Int)
        /// `lb` above `tb` for the same object type.
        case lowestBitrateAboveTop(lowest: Int, top: Int)
        /// A key that stays for a session changed (`sid`, `v`, `sf`, `st`).
        case changed(from: String, to: String)
        /// A key meant once per session (`msd`) was sent again with the same `sid`.
        case sentAgain
        /// A request without CMCD in a session whose other requests carry it.
        case withoutCMCD
        /// The player stalled (`cause`, from `at` seconds) and no later request said so: no `bs`
        /// (v1), no `sta=r` or starvation count or duration (v2).
        case starvationNotSent(cause: String, at: Double)
    }

    public var kind: Kind
    public var key: String?
    public var objectType: CMCDObjectType?
    /// Requests that showed it.
    public var count: Int
    /// The first such request: its index among the observations and its time.
    public var firstRequest: Int
    public var firstTime: Double

    public var description: String {
        let on = objectType.map { " on \($0.name) (\($0.rawValue))" } ?? ""
        let name = key ?? "CMCD"
        let times = count == 1 ? "once" : "\(count) times"
        let what: String
        switch kind {
        case .finding(let problem, let carriage):
            what = CMCDFinding(key: key, carriage: carriage, problem: problem).description
        case .missing:
            what = "\(name) not sent\(on), where the specification expects it"
        case .notForObjectType:
            what = "\(name) sent\(on), an object type it is not defined for"
        case .objectTypeDisagrees(let sent, let actual):
            what = "ot=\(sent.rawValue) on a request for \(actual.name) (\(actual.rawValue))"
        case .notRounded(let step, let value):
            what = "\(name)=\(value)\(on) is not rounded to \(step)"
        case .topBitrateBelowBitrate(let top, let bitrate):
            what = "tb=\(top) below br=\(bitrate)\(on): the top bitrate is below the bitrate in use"
        case .lowestBitrateAboveTop(let lowest, let top):
            what = "lb=\(lowest) above tb=\(top)\(on)"
        case .changed(let from, let to):
            what = "\(name) changed mid-session, \(from) → \(to)"
        case .sentAgain:
            what = "\(name) sent more than once in one session"
        case .withoutCMCD:
            what = "requests without CMCD among requests with it"
        case .starvationNotSent(let cause, let at):
            let signal = name == "bs" ? "bs" : "a rebuffering state (sta=r), bsa or bsd"
            what = "no request said the stall at \(Self.seconds(at)) (\(cause)) with \(signal)"
        }
        return "\(what) (\(times), first at request \(firstRequest + 1), \(Self.seconds(firstTime)))"
    }

    static func seconds(_ time: Double) -> String {
        let tenths = (time * 10).rounded()
        return String(Int(tenths) / 10) + "." + String(abs(Int(tenths) % 10)) + " s"
    }
}

// MARK: - The pass over a session

private struct Checker {
    let maxIssues: Int
    var requestsWithCMCD = 0
    var versions: Set<Int> = []
    var keyUse: [CMCDObjectType?: (requests: Int, keys: [String: Int])] = [:]
    var issues: [CMCDIssue] = []
    var place: [String: Int] = [:]
    var leftOut: Set<String> = []
    var withoutCMCD: [(Int, Double)] = []
    /// The last value of each session-long key, and `msd` per session ID.
    var sessionValues: [CMCDKey: String] = [:]
    var startDelays: Set<String> = []

    init(maxIssues: Int) { self.maxIssues = max(0, maxIssues) }

    mutating func read(_ observation: CMCDObservation, index: Int) {
        guard let cmcd = observation.cmcd else {
            withoutCMCD.append((index, observation.time))
            return
        }
        requestsWithCMCD += 1
        versions.insert(cmcd.version)
        let objectType = cmcd.ot ?? observation.objectTypeHint
        var use = keyUse[objectType] ?? (0, [:])
        use.requests += 1
        for pair in cmcd.pairs { use.keys[pair.key, default: 0] += 1 }
        keyUse[objectType] = use

        func note(_ kind: CMCDIssue.Kind, key: String? = nil, on type: CMCDObjectType? = nil) {
            add(kind, key: key, objectType: type, index: index, time: observation.time)
        }

        for finding in cmcd.findings {
            note(.finding(finding.problem, finding.carriage), key: finding.key)
        }

        // Expected keys.
        if cmcd.sid == nil && cmcd.pair("sid") == nil { note(.missing, key: "sid", on: objectType) }
        if cmcd.pair("ot") == nil, let hint = observation.objectTypeHint { note(.missing, key: "ot", on: hint) }
        if let objectType, CMCDObjectType.audioVisual.contains(objectType) {
            for key in ["br", "d"] where cmcd.pair(key) == nil { note(.missing, key: key, on: objectType) }
        }

        // The object type: as sent, against what the request was.
        if let sent = cmcd.ot, let hint = observation.objectTypeHint, !Self.compatible(sent, hint) {
            note(.objectTypeDisagrees(sent: sent, actual: hint), key: "ot", on: hint)
        }
        if let objectType {
            for pair in cmcd.pairs {
                guard let key = CMCDKey(rawValue: pair.key), let allowed = key.objectTypes(version: min(cmcd.version, 2)) else { continue }
                if !allowed.contains(objectType) { note(.notForObjectType, key: pair.key, on: objectType) }
            }
        }

        // Values.
        for (key, values) in Self.roundedValues(cmcd) {
            guard let step = key.roundedTo, let odd = values.first(where: { $0 % step != 0 }) else { continue }
            note(.notRounded(step: step, value: odd), key: key.rawValue, on: objectType)
        }
        if let top = cmcd.topBitrate, let bitrate = cmcd.bitrate, top < bitrate {
            note(.topBitrateBelowBitrate(top: top, bitrate: bitrate), key: "tb", on: objectType)
        }
        if let lowest = cmcd.lb?.value(for: cmcd.ot), let top = cmcd.topBitrate, lowest > top {
            note(.lowestBitrateAboveTop(lowest: lowest, top: top), key: "lb", on: objectType)
        }

        // Keys that stay for a session.
        let current: [(CMCDKey, String?)] = [
            (.sid, cmcd.sid), (.v, String(cmcd.version)), (.sf, cmcd.sf?.rawValue), (.st, cmcd.st?.rawValue),
        ]
        for (key, value) in current {
            guard let value else { continue }
            if let previous = sessionValues[key], previous != value { note(.changed(from: previous, to: value), key: key.rawValue) }
            sessionValues[key] = value
        }
        if cmcd.msd != nil {
            let session = cmcd.sid ?? ""
            if startDelays.contains(session) { note(.sentAgain, key: "msd") }
            startDelays.insert(session)
        }
    }

    /// The media group's types stand in for each other (a proxy often cannot tell audio from video);
    /// manifests, init sections and keys must match.
    static func compatible(_ sent: CMCDObjectType, _ actual: CMCDObjectType) -> Bool {
        let media: Set<CMCDObjectType> = [.audio, .video, .muxed, .other, .caption, .timedText]
        return sent == actual || (media.contains(sent) && media.contains(actual))
    }

    static func roundedValues(_ cmcd: CMCDData) -> [(CMCDKey, [Int])] {
        [
            (.bl, cmcd.bl?.map(\.value) ?? []), (.tbl, cmcd.tbl?.map(\.value) ?? []), (.mtp, cmcd.mtp?.map(\.value) ?? []),
            (.dl, cmcd.dl.map { [$0] } ?? []), (.rtp, cmcd.rtp.map { [$0] } ?? []),
        ]
    }

    /// An issue counted elsewhere, kept as it is (within `maxIssues`).
    mutating func append(_ issue: CMCDIssue) {
        if issues.count < maxIssues { issues.append(issue) } else { leftOut.insert(Self.family(issue.kind)) }
    }

    mutating func add(_ kind: CMCDIssue.Kind, key: String?, objectType: CMCDObjectType?, index: Int, time: Double) {
        let group = Self.family(kind) + "|" + (key ?? "") + "|" + (objectType?.rawValue ?? "")
        if let position = place[group] {
            issues[position].count += 1
            return
        }
        guard issues.count < maxIssues else {
            leftOut.insert(group)
            return
        }
        place[group] = issues.count
        issues.append(CMCDIssue(kind: kind, key: key, objectType: objectType, count: 1, firstRequest: index, firstTime: time))
    }

    /// The kind without its example values: what issues are counted together by.
    static func family(_ kind: CMCDIssue.Kind) -> String {
        switch kind {
        case .finding(let problem, let carriage): "finding:" + String(String(describing: problem).prefix { $0 != "(" }) + ":" + carriage.name
        case .objectTypeDisagrees(let sent, _): "objectTypeDisagrees:" + sent.rawValue
        default: String(String(describing: kind).prefix { $0 != "(" })
        }
    }

    func result(requests: Int) -> CMCDConformance {
        var result = CMCDConformance()
        result.requests = requests
        result.requestsWithCMCD = requestsWithCMCD
        result.versions = versions.sorted()
        result.issues = issues
        result.issuesLeftOut = leftOut.count
        if requestsWithCMCD > 0, let first = withoutCMCD.first {
            if issues.count < maxIssues {
                result.issues.append(CMCDIssue(kind: .withoutCMCD, key: nil, objectType: nil, count: withoutCMCD.count, firstRequest: first.0, firstTime: first.1))
            } else {
                result.issuesLeftOut += 1
            }
        }
        // In the specification's order of object types; requests of no known type last.
        result.keyUse = keyUse.map { CMCDKeyUse(objectType: $0.key, requests: $0.value.requests, keys: $0.value.keys) }
            .sorted { lhs, rhs in
                guard let left = lhs.objectType else { return false }
                guard let right = rhs.objectType else { return true }
                return left < right
            }
        return result
    }
}
