/// The header fields of an origin's response as curl handed them over: their bytes, names and values
/// trimmed, one after another in one array, and where each field lies in it. A field is read as
/// strings where a consumer wants them (`self[i]`, `first`), or as bytes (`forEachField`), which is
/// how the proxy copies the origin's fields into the client's head without making a string of each.
public struct UpstreamHeaders: Sendable, RandomAccessCollection {
    public typealias Element = (name: String, value: String)

    private var bytes: [UInt8] = []
    private var fields: [Field] = []

    /// `bytes[nameStart..<valueStart]` is the name, `bytes[valueStart..<valueEnd]` the value.
    private struct Field {
        var nameStart: Int32
        var valueStart: Int32
        var valueEnd: Int32
    }

    public init() {}

    /// Room for an origin's usual head (6–15 fields): one allocation each, not several.
    init(reserving byteCount: Int, fields fieldCount: Int) {
        bytes.reserveCapacity(byteCount)
        fields.reserveCapacity(fieldCount)
    }

    public init(_ list: [(name: String, value: String)]) {
        for (name, value) in list {
            Array(name.utf8).withUnsafeBytes { name in Array(value.utf8).withUnsafeBytes { append(name: name, value: $0) } }
        }
    }

    mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        // As typed buffers: appended with one copy each, not byte by byte.
        let nameStart = Int32(bytes.count)
        bytes.append(contentsOf: name.assumingMemoryBound(to: UInt8.self))
        let valueStart = Int32(bytes.count)
        bytes.append(contentsOf: value.assumingMemoryBound(to: UInt8.self))
        fields.append(Field(nameStart: nameStart, valueStart: valueStart, valueEnd: Int32(bytes.count)))
    }

    /// An obsolete folded line: its bytes join the last value after a space.
    mutating func continueLastValue(_ more: UnsafeRawBufferPointer) {
        guard !fields.isEmpty else { return }
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: more.assumingMemoryBound(to: UInt8.self))
        fields[fields.count - 1].valueEnd = Int32(bytes.count)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { fields.count }

    public subscript(position: Int) -> Element {
        let field = fields[position]
        return (
            String(decoding: bytes[Int(field.nameStart)..<Int(field.valueStart)], as: UTF8.self),
            String(decoding: bytes[Int(field.valueStart)..<Int(field.valueEnd)], as: UTF8.self))
    }

    /// Calls `body` with each field's name and value bytes, in order.
    public func forEachField(_ body: (_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void) rethrows {
        try bytes.withUnsafeBytes { bytes in
            for field in fields {
                try body(
                    UnsafeRawBufferPointer(rebasing: bytes[Int(field.nameStart)..<Int(field.valueStart)]),
                    UnsafeRawBufferPointer(rebasing: bytes[Int(field.valueStart)..<Int(field.valueEnd)]))
            }
        }
    }

    /// The first value of the field named `name`, compared ignoring ASCII case.
    public func first(_ name: String) -> String? {
        guard let index = firstIndex(named: name) else { return nil }
        return self[index].value
    }

    private func firstIndex(named name: String) -> Int? {
        fields.firstIndex { asciiCaseInsensitiveEquals(bytes[Int($0.nameStart)..<Int($0.valueStart)], name.utf8) }
    }

    /// The fields without those named `names` (compared ignoring ASCII case).
    func removingAll(named names: [String]) -> UpstreamHeaders {
        var kept = UpstreamHeaders(reserving: bytes.count, fields: fields.count)
        forEachField { name, value in
            if !names.contains(where: { asciiCaseInsensitiveEquals(name, $0.utf8) }) { kept.append(name: name, value: value) }
        }
        return kept
    }
}
