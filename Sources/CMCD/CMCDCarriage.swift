/// The four request headers CMCD is split across, by how often a key's value changes.
public enum CMCDHeaderField: String, CaseIterable, Sendable, Hashable {
    /// Keys about the object requested (`br`, `d`, `ot`, `tb`, …).
    case object = "CMCD-Object"
    /// Keys that vary with each request (`bl`, `dl`, `mtp`, `nor`, `su`, …).
    case request = "CMCD-Request"
    /// Keys expected to stay the same for the whole session (`cid`, `sf`, `sid`, `st`, `v`, …).
    case session = "CMCD-Session"
    /// Keys that change rarely (`bs`, `rtp`, …).
    case status = "CMCD-Status"

    /// The header a name (in any case) stands for; nil for any other header.
    public init?(headerName: String) {
        guard headerName.utf8.count <= 12 else { return nil }
        let lowered = headerName.lowercased()
        guard let field = Self.allCases.first(where: { $0.rawValue.lowercased() == lowered }) else { return nil }
        self = field
    }
}

/// Where a request carried a key: the `CMCD` query argument or one of the four headers.
public enum CMCDCarriage: Sendable, Hashable, CustomStringConvertible {
    case query
    case header(CMCDHeaderField)

    /// The name of the query argument.
    public static let queryArgumentName = "CMCD"

    public var description: String {
        switch self {
        case .query: "the CMCD query argument"
        case .header(let field): "the \(field.rawValue) header"
        }
    }

    /// A short name for records and the dashboard: `query`, `CMCD-Object`, ….
    public var name: String {
        switch self {
        case .query: "query"
        case .header(let field): field.rawValue
        }
    }
}
