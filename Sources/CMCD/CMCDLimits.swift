/// What one request's CMCD may cost. A carriage longer than `maxBytesPerCarriage` is not read at
/// all; after `maxKeys` keys (all carriages together) the rest are not read; an inner list or a
/// parameter list longer than `maxListItems` costs its key; at most `maxFindings` findings are
/// kept (one more says how many were left out). Memory is therefore bounded by these numbers,
/// whatever a client sends.
public struct CMCDLimits: Sendable, Hashable {
    public var maxBytesPerCarriage: Int
    public var maxKeys: Int
    public var maxListItems: Int
    public var maxFindings: Int

    public init(maxBytesPerCarriage: Int = 8192, maxKeys: Int = 64, maxListItems: Int = 32, maxFindings: Int = 32) {
        self.maxBytesPerCarriage = max(0, maxBytesPerCarriage)
        self.maxKeys = max(0, maxKeys)
        self.maxListItems = max(0, maxListItems)
        self.maxFindings = max(1, maxFindings)
    }

    public static let `default` = CMCDLimits()
}

/// Findings, at most `limit` of them, then one that counts the rest.
struct FindingList {
    let limit: Int
    private(set) var findings: [CMCDFinding] = []
    private var left = 0

    init(limit: Int) { self.limit = limit }

    mutating func add(_ finding: CMCDFinding) {
        if findings.count < limit { findings.append(finding) } else { left += 1 }
    }

    mutating func add(key: String? = nil, _ carriage: CMCDCarriage, _ problem: CMCDProblem) {
        add(CMCDFinding(key: key, carriage: carriage, problem: problem))
    }

    var all: [CMCDFinding] {
        guard left > 0, let last = findings.last else { return findings }
        return findings + [CMCDFinding(carriage: last.carriage, problem: .moreFindings(count: left))]
    }
}
