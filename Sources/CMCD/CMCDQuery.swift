/// The query side of CMCD: `CMCD=<percent-encoded dictionary>` among a URL's arguments.
enum CMCDQuery {
    /// The arguments of a request target's query (after the first `?`, before any `#`), split on `&`
    /// as written, empty ones included.
    static func arguments(of target: String) -> (query: Range<String.Index>, arguments: [Substring])? {
        let utf8 = target.utf8
        guard let mark = utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        let start = utf8.index(after: mark)
        let end = utf8[start...].firstIndex(of: UInt8(ascii: "#")) ?? utf8.endIndex
        var arguments: [Substring] = []
        var argumentStart = start
        var position = start
        while position < end {
            if utf8[position] == UInt8(ascii: "&") {
                arguments.append(target[argumentStart..<position])
                argumentStart = utf8.index(after: position)
            }
            position = utf8.index(after: position)
        }
        arguments.append(target[argumentStart..<end])
        return (start..<end, arguments)
    }

    /// The value of an argument named exactly `CMCD` (as written, still encoded); nil for any other.
    static func cmcdValue(of argument: Substring) -> Substring? {
        let name = CMCDCarriage.queryArgumentName
        guard argument.utf8.starts(with: name.utf8) else { return nil }
        let rest = argument.utf8.dropFirst(name.utf8.count)
        guard let first = rest.first else { return argument[argument.endIndex...] }
        guard first == UInt8(ascii: "=") else { return nil }
        return Substring(rest.dropFirst())
    }

    /// Percent-decoding as browsers encode query values: `%XX` is a byte, `+` a space (`encodeURIComponent`
    /// writes a literal `+` as `%2B`, so a bare `+` is a form-encoded space). A `%` without two hex
    /// digits is kept and noted.
    static func decode(_ encoded: Substring, findings: inout FindingList) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.utf8.count)
        let input = Array(encoded.utf8)
        var index = 0
        var noted = false
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "%") {
                if index + 2 < input.count, let high = hex(input[index + 1]), let low = hex(input[index + 2]) {
                    bytes.append(high << 4 | low)
                    index += 3
                    continue
                }
                if !noted { findings.add(.query, .badPercentEncoding(offset: index)) }
                noted = true
            }
            bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
        return bytes
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
