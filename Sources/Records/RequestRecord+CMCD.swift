import Addressing
import CMCD
import Foundation

extension RequestRecord.CMCD {
    /// What a record keeps of a request's CMCD: the keys as one compact text, where they came
    /// from, and the findings in words.
    public init(_ data: CMCDData) {
        self.init(text: data.compactText, carriages: data.carriages.map(\.name).sorted(),
                  findings: data.findings.isEmpty ? nil : data.findings.map(\.description))
    }
}

extension RequestRecord {
    /// The CMCD the record kept, read back into typed fields (nil: the request carried none).
    public var parsedCMCD: CMCDData? { cmcd.flatMap { CMCDData.parse(compact: $0.text) } }

    /// The CMCD object type the proxy knows this request was (nil for segments and parts: the proxy
    /// cannot tell audio from video).
    public var cmcdObjectTypeHint: CMCDObjectType? {
        switch kind {
        case .master?, .media?: .manifest
        case .`init`?: .initSegment
        case .key?: .key
        case .sessionData?, .steering?: .other
        default: nil
        }
    }
}

/// What a session's records say of the player's CMCD: `CMCDConformance` (keys per object type,
/// keys missing where expected, out-of-range values, `sid` changing mid-session), and the
/// requests' own findings as the proxy recorded them.
public struct CMCDSessionConformance: Sendable {
    public var conformance: CMCDConformance
    /// Each record with findings: its id and the findings in words (at most `maxRecords`).
    public var findings: [(record: UInt64, findings: [String])]
    /// The stalls the player's `bs` / `sta=r` were held to.
    public var knownStalls: [CMCDKnownStall]

    /// The issue of stalls the player never said (`CMCDIssue.Kind.starvationNotSent`), if any.
    public var unsaidStallIssue: CMCDIssue? {
        conformance.issues.first { if case .starvationNotSent = $0.kind { true } else { false } }
    }

    public static let maxRecords = 100

    /// Over a session's stream records (`CONNECT`s and a forward device's other traffic left out).
    /// The player's stalls are those the records show (`CMCDKnownStall.held`) and `playerStalls`
    /// (its driver's, on the session's clock: `CMCDKnownStall.reported`).
    public init(_ records: [RequestRecord], playerStalls: [CMCDKnownStall] = []) {
        let records = records.streamRecords.sorted(by: RequestRecord.chronological)
        let origin = records.first?.time ?? Date()
        knownStalls = CMCDKnownStall.held(in: records) + playerStalls
        conformance = CMCDConformance.check(records.map {
            CMCDObservation(time: $0.time.timeIntervalSince(origin), objectTypeHint: $0.cmcdObjectTypeHint, cmcd: $0.parsedCMCD)
        }, stalls: knownStalls)
        findings = Array(records.lazy.compactMap { record in record.cmcd?.findings.map { (record.id, $0) } }.prefix(Self.maxRecords))
    }

    /// Only the stalls never said (what the reaction report's player section shows): the same
    /// issue as in `conformance`, without the rest of the checks.
    public static func unsaidStallIssue(_ records: [RequestRecord], playerStalls: [CMCDKnownStall] = []) -> CMCDIssue? {
        let records = records.streamRecords.sorted(by: RequestRecord.chronological)
        guard let origin = records.first?.time else { return nil }
        let stalls = CMCDKnownStall.held(in: records) + playerStalls
        guard !stalls.isEmpty else { return nil }
        return CMCDConformance.unsaidStallIssue(records.map {
            CMCDObservation(time: $0.time.timeIntervalSince(origin), objectTypeHint: $0.cmcdObjectTypeHint, cmcd: $0.parsedCMCD)
        }, stalls: stalls)
    }

    /// True when CMCD was sent, its values were well-formed and the session raised no conformance issue.
    public var isValid: Bool { conformance.requestsWithCMCD > 0 && conformance.isClean && findings.isEmpty }
}
