/// What a proxied request is for. Encoded into every URI the proxy writes into a playlist, so a later
/// request tells its kind, variant or rendition and media sequence number without guessing or state.
///
/// Wire form: one path component, `~` + kind + dot-separated fields, for example `~seg.v1.n42`
/// (segment, variant 1, MSN 42), `~media.r2` (rendition 2's media playlist), `~media.v0.b` (the backup
/// copy of variant 0), `~part.v1.n42.p3`. A resource of a content-steering pathway carries its
/// `PATHWAY-ID` last, after a second `~`: `~seg.v4.n42~cdn-b` (pathway IDs may hold dots, never `~`).
public struct ResourceTag: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        case master, media, segment = "seg", part, initSection = "init", key, sessionData = "sessiondata"
        case steering, asset
    }

    public var kind: Kind
    public var variant: Int?
    public var rendition: Int?
    public var iFrameVariant: Int?
    public var msn: Int?
    public var part: Int?
    /// The redundant copy added by the `backupVariants` fault.
    public var backup: Bool
    /// The content-steering pathway (`PATHWAY-ID`) of the variant the resource belongs to; nil when
    /// the master names none, or one that is no valid pathway ID (see `isValidPathway`).
    public var pathway: String?

    public init(
        kind: Kind, variant: Int? = nil, rendition: Int? = nil, iFrameVariant: Int? = nil,
        msn: Int? = nil, part: Int? = nil, backup: Bool = false, pathway: String? = nil
    ) {
        self.kind = kind
        self.variant = variant
        self.rendition = rendition
        self.iFrameVariant = iFrameVariant
        self.msn = msn
        self.part = part
        self.backup = backup
        self.pathway = pathway.flatMap { Self.isValidPathway($0) ? $0 : nil }
    }

    /// Longest pathway ID a tag carries.
    static let maxPathwayLength = 64

    /// rfc8216bis §4.4.6.2: a PATHWAY-ID holds only `[a-z]`, `[A-Z]`, `[0-9]`, `-`, `.` and `_`.
    public static func isValidPathway(_ id: some StringProtocol) -> Bool {
        !id.isEmpty && id.utf8.count <= maxPathwayLength && id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
        }
    }

    public var description: String {
        withWireBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the wire form's bytes, written on the stack: a rewritten playlist writes
    /// one tag per URI, and a String for each would be an allocation.
    public func withWireBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maxWireLength) { buffer in
            body(UnsafeBufferPointer(start: buffer.baseAddress!, count: writeWire(to: buffer.baseAddress!)))
        }
    }

    /// The longest wire form: "~sessiondata", five fields of at most 2 + 20 bytes, ".b" and "~" + a pathway.
    static let maxWireLength = 128 + 1 + maxPathwayLength

    /// Writes the wire form at `target`, which has room for `maxWireLength` bytes; returns its length.
    func writeWire(to target: UnsafeMutablePointer<UInt8>) -> Int {
        var count = writeHead(to: target)
        count = Self.writeField(UInt8(ascii: "n"), msn, to: target, at: count)
        return writeTail(to: target, at: count)
    }

    /// The wire form without its MSN, in two pieces: with `.n` and the MSN in decimal between them it is
    /// the wire form of this tag with that MSN. For writing many tags that differ by their MSN alone
    /// (a playlist's segments) without writing every field of each.
    func wireAroundMSN() -> (head: [UInt8], tail: [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maxWireLength) { buffer in
            let target = buffer.baseAddress!
            let head = Array(UnsafeBufferPointer(start: target, count: writeHead(to: target)))
            return (head, Array(UnsafeBufferPointer(start: target, count: writeTail(to: target, at: 0))))
        }
    }

    /// `~`, the kind and the fields before the MSN; returns the length.
    private func writeHead(to target: UnsafeMutablePointer<UInt8>) -> Int {
        target[0] = UInt8(ascii: "~")
        var count = 1
        kind.wireName.withUTF8Buffer { name in
            (target + count).update(from: name.baseAddress!, count: name.count)
            count += name.count
        }
        count = Self.writeField(UInt8(ascii: "v"), variant, to: target, at: count)
        count = Self.writeField(UInt8(ascii: "r"), rendition, to: target, at: count)
        return Self.writeField(UInt8(ascii: "i"), iFrameVariant, to: target, at: count)
    }

    /// The fields after the MSN, written at `target + start`; returns the new length.
    private func writeTail(to target: UnsafeMutablePointer<UInt8>, at start: Int) -> Int {
        var count = Self.writeField(UInt8(ascii: "p"), part, to: target, at: start)
        if backup {
            target[count] = UInt8(ascii: ".")
            target[count + 1] = UInt8(ascii: "b")
            count += 2
        }
        if let pathway {
            target[count] = UInt8(ascii: "~")
            count += 1
            for byte in pathway.utf8 {
                target[count] = byte
                count += 1
            }
        }
        return count
    }

    /// `.` + `field` + the number in decimal, written at `target + start`; returns the new length.
    private static func writeField(_ field: UInt8, _ number: Int?, to target: UnsafeMutablePointer<UInt8>, at start: Int) -> Int {
        guard let number else { return start }
        target[start] = UInt8(ascii: ".")
        target[start + 1] = field
        return writeDecimal(number, to: target, at: start + 2)
    }

    /// `number` in decimal, written at `target + start` (at most 20 bytes); returns the new length.
    static func writeDecimal(_ number: Int, to target: UnsafeMutablePointer<UInt8>, at start: Int) -> Int {
        var count = start
        if number < 0 {
            target[count] = UInt8(ascii: "-")
            count += 1
        }
        var magnitude = number.magnitude
        var digits = 1
        var power: UInt = 10
        while digits < 20 && magnitude >= power {
            digits += 1
            power = power.multipliedReportingOverflow(by: 10).partialValue
        }
        count += digits
        var position = count
        repeat {
            position -= 1
            target[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        return count
    }

    /// The tag of an entry playlist fetched without one: master or media as its body says; nil when
    /// the body is not a playlist.
    public init?(entryPlaylist body: [UInt8]) {
        self.init(playlistKind: body.withUnsafeBytes { ResourceGuess.playlistKind(of: $0) })
    }

    /// The same, for bytes held elsewhere (a network buffer).
    public init?(entryPlaylist body: UnsafeRawBufferPointer) {
        self.init(playlistKind: ResourceGuess.playlistKind(of: body))
    }

    private init?(playlistKind kind: ResourceKind?) {
        guard let kind else { return nil }
        self.init(kind: kind == .master ? .master : .media)
    }

    /// What the rules and the records call this kind of resource.
    public var resourceKind: ResourceKind { kind.resourceKind }

    /// Longest number a tag may carry: MSNs of epoch-based live streams fit (10^15), and no sum or
    /// difference of two such numbers can overflow.
    static let maxDigits = 15

    /// Parses the wire form; nil when `component` is not a well-formed tag.
    public init?(component: Substring) {
        guard component.first == "~" else { return nil }
        var fieldsText = component.dropFirst()
        var pathway: Substring?
        if let mark = fieldsText.firstIndex(of: "~") {
            pathway = fieldsText[fieldsText.index(after: mark)...]
            fieldsText = fieldsText[..<mark]
            guard let pathway, Self.isValidPathway(pathway) else { return nil }
        }
        let fields = fieldsText.split(separator: ".", omittingEmptySubsequences: false)
        guard let first = fields.first, let kind = Kind(rawValue: String(first)) else { return nil }
        self.init(kind: kind, pathway: pathway.map(String.init))
        for field in fields.dropFirst() {
            guard let letter = field.first else { return nil }
            if field == "b" {
                backup = true
                continue
            }
            let digits = field.dropFirst()
            guard digits.utf8.count <= Self.maxDigits, let number = Int(digits), number >= 0 else { return nil }
            switch letter {
            case "v": variant = number
            case "r": rendition = number
            case "i": iFrameVariant = number
            case "n": msn = number
            case "p": part = number
            default: return nil
            }
        }
    }
}

extension ResourceTag.Kind {
    /// The kind as the wire form spells it: its raw value, as a `StaticString` whose bytes are copied
    /// without a `String` (reading `rawValue`'s bytes made the rewrite of a new playlist 3–7 % slower;
    /// `ProxyURLTests` checks that the two agree).
    var wireName: StaticString {
        switch self {
        case .master: "master"
        case .media: "media"
        case .segment: "seg"
        case .part: "part"
        case .initSection: "init"
        case .key: "key"
        case .sessionData: "sessiondata"
        case .steering: "steering"
        case .asset: "asset"
        }
    }
}

extension ResourceTag.Kind {
    /// What the rules and the records call this kind of resource (an interstitial's asset: a segment).
    public var resourceKind: ResourceKind {
        switch self {
        case .master: .master
        case .media: .media
        case .segment, .asset: .segment
        case .part: .part
        case .initSection: .`init`
        case .key: .key
        case .sessionData: .sessionData
        case .steering: .steering
        }
    }
}
