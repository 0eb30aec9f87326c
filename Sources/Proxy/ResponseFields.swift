import NIOCore
import NIOHTTP1
import Upstream

/// A response's header fields as they go on the wire, `name: value\r\n` each, in order, in one
/// buffer. Built once per response (from the origin's fields by `HeaderPolicy`, or from the
/// proxy's own), finished into the head's bytes by `ClientChannel.sendHead` and written as they are
/// (`HTTP1ResponseWriter`): the fields are not held as strings and encoded again.
///
/// The first field of each name the framing, CORS and the record ask about on every response
/// (`KnownHeaderName.fieldSlot`) is noted as it is added, so those questions do not read the fields
/// again.
///
/// Every field added must be valid HTTP already: the origin's are checked by `HeaderPolicy`, the
/// proxy's own are fixed or come from rule files checked when they load.
///
/// Room is kept in front of the first field for the status line, so that the head is one buffer
/// without a copy (`head(status:version:chunked:)`).
struct ResponseFields {
    private static let statusLineRoom = 64
    private static let allocator = ByteBufferAllocator()
    private var buffer: ByteBuffer
    /// Per slot, the first such field's value as `start << 32 | end` in `buffer`; 0 for none (no
    /// value starts at 0: the room comes first).
    private var noted = InlineArray<8, UInt64>(repeating: 0)

    init(capacity: Int = 448) {
        buffer = Self.allocator.buffer(capacity: Self.statusLineRoom + capacity)
        buffer.moveWriterIndex(forwardBy: Self.statusLineRoom)
        buffer.moveReaderIndex(forwardBy: Self.statusLineRoom)
    }

    init(_ headers: HTTPHeaders) {
        self.init()
        for (name, value) in headers { add(name: name, value: value) }
    }

    init(_ fields: some Sequence<(name: String, value: String)>) {
        self.init()
        for (name, value) in fields { add(name: name, value: value) }
    }

    mutating func add(name: String, value: String) {
        var name = name, value = value
        name.withUTF8 { name in value.withUTF8 { add(name: UnsafeRawBufferPointer(name), value: UnsafeRawBufferPointer($0)) } }
    }

    /// One field, written with one capacity check.
    mutating func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        add(name: name, value: value, known: KnownHeaderName(bytes: name))
    }

    /// One field whose name the caller has recognised already (`HeaderPolicy` asks of every one).
    mutating func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, known: KnownHeaderName?) {
        let length = name.count + 2 + value.count + 2
        let valueStart = buffer.writerIndex + name.count + 2
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { target in
            var at = target.baseAddress!
            if name.count > 0 { at.copyMemory(from: name.baseAddress!, byteCount: name.count) }
            at += name.count
            at.storeBytes(of: UInt8(ascii: ":"), as: UInt8.self)
            (at + 1).storeBytes(of: UInt8(ascii: " "), as: UInt8.self)
            at += 2
            if value.count > 0 { at.copyMemory(from: value.baseAddress!, byteCount: value.count) }
            at += value.count
            at.storeBytes(of: UInt8(ascii: "\r"), as: UInt8.self)
            (at + 1).storeBytes(of: UInt8(ascii: "\n"), as: UInt8.self)
            return length
        }
        if let slot = known?.fieldSlot, noted[slot] == 0 {
            noted[slot] = UInt64(valueStart) << 32 | UInt64(valueStart + value.count)
        }
    }

    /// The first value of a field the slots note (a name with a `KnownHeaderName.fieldSlot`),
    /// without reading the others.
    func first(_ known: KnownHeaderName) -> String? {
        guard let slot = known.fieldSlot else { preconditionFailure("\(known) has no slot: ask by its name") }
        let range = noted[slot]
        guard range != 0 else { return nil }
        return buffer.getString(at: Int(range >> 32), length: Int(range & 0xFFFF_FFFF) - Int(range >> 32))
    }

    func contains(_ known: KnownHeaderName) -> Bool {
        guard let slot = known.fieldSlot else { preconditionFailure("\(known) has no slot: ask by its name") }
        return noted[slot] != 0
    }

    /// Calls `body` with each field's name and value, in order, until it returns false.
    func forEach(_ body: (_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool) rethrows {
        try buffer.withUnsafeReadableBytes { try Self.forEachField(in: $0, body) }
    }

    /// The fields of `lines` (`name: value\r\n` each, as `add` writes them; a name has no colon), up
    /// to the first line that is none (the empty line that ends a head).
    static func forEachField(
        in lines: UnsafeRawBufferPointer, _ body: (_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) rethrows {
        var start = 0
        while start < lines.count,
              let colon = lines[start...].firstIndex(of: UInt8(ascii: ":")),
              let end = lines[colon...].firstIndex(of: UInt8(ascii: "\r")),
              try body(
                  UnsafeRawBufferPointer(rebasing: lines[start..<colon]),
                  UnsafeRawBufferPointer(rebasing: lines[min(colon + 2, end)..<end])) {
            start = end + 2
        }
    }

    /// The first value of the field named `name` (compared ignoring ASCII case).
    func first(_ name: String) -> String? {
        var found: String?
        forEach { fieldName, value in
            guard asciiCaseInsensitiveEquals(fieldName, name.utf8) else { return true }
            found = String(decoding: value, as: UTF8.self)
            return false
        }
        return found
    }

    func contains(_ name: String) -> Bool { first(name) != nil }

    /// Every field named `name` taken out (the others keep their order).
    mutating func remove(_ name: String) {
        guard contains(name) else { return }
        var kept = ResponseFields()
        forEach { fieldName, value in
            if !asciiCaseInsensitiveEquals(fieldName, name.utf8) { kept.add(name: fieldName, value: value) }
            return true
        }
        self = kept
    }

    /// The field named `name` set to `value` alone, at the end.
    mutating func replaceOrAdd(name: String, value: String) {
        if let known = KnownHeaderName(name), known.fieldSlot != nil, !contains(known) {
            add(name: name, value: value)  // none to replace: the usual case, without reading the fields
            return
        }
        remove(name)
        add(name: name, value: value)
    }

    /// The fields as strings (a recording's copy of the head, an HTTP/2 stream's head).
    var list: [(name: String, value: String)] {
        var list: [(name: String, value: String)] = []
        forEach { name, value in
            list.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
            return true
        }
        return list
    }

    /// The head these fields end: `chunked` when the body goes in chunks (`ClientChannel.frame`).
    consuming func head(status: HTTPResponseStatus, version: HTTPVersion, chunked: Bool) -> ResponseHead {
        ResponseHead(bytes: bytes(status: status, version: version), chunked: chunked)
    }

    /// The whole head as HTTP/1 sends it: the status line written into the room kept in front of the
    /// fields, the fields, the empty line.
    private consuming func bytes(status: HTTPResponseStatus, version: HTTPVersion) -> ByteBuffer {
        // Taken out of `self`, which ends here: a copy would share the storage and make the first
        // write below copy it.
        var head = (consume self).buffer
        head.writeStaticString("\r\n")
        let reason = status.reasonPhrase
        let code = Int(status.code)
        // "HTTP/1.1 200 OK\r\n": 9 bytes before the code, a space and the line's end after it.
        let length = 9 + 3 + 1 + reason.utf8.count + 2
        guard length <= head.readerIndex, (0..<10).contains(version.major), (0..<10).contains(version.minor), (100..<1000).contains(code) else {
            var copied = Self.allocator.buffer(capacity: 64 + head.readableBytes)
            copied.writeString("HTTP/\(version.major).\(version.minor) \(code) \(reason)\r\n")
            copied.writeImmutableBuffer(head)
            return copied
        }
        head.moveReaderIndex(to: head.readerIndex - length)
        head.withUnsafeMutableReadableBytes { line in
            var at = 0
            func put(_ byte: UInt8) {
                line[at] = byte
                at += 1
            }
            for byte in "HTTP/".utf8 { put(byte) }
            put(UInt8(ascii: "0") + UInt8(version.major))
            put(UInt8(ascii: "."))
            put(UInt8(ascii: "0") + UInt8(version.minor))
            put(UInt8(ascii: " "))
            put(UInt8(ascii: "0") + UInt8(code / 100))
            put(UInt8(ascii: "0") + UInt8(code / 10 % 10))
            put(UInt8(ascii: "0") + UInt8(code % 10))
            put(UInt8(ascii: " "))
            var reason = reason
            reason.withUTF8 { for byte in $0 { put(byte) } }
            put(UInt8(ascii: "\r"))
            put(UInt8(ascii: "\n"))
        }
        return head
    }
}
