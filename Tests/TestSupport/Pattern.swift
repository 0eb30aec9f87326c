/// The deterministic bytes `TestOrigin.Response.generated` serves: byte i is `UInt8(i % 251)`.
/// 251 is prime, so a shifted or dropped block never lines up with the pattern by accident.
public func patternBytes(offset: Int, count: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: max(count, 0))
    var value = offset % 251
    for index in bytes.indices {
        bytes[index] = UInt8(value)
        value += 1
        if value == 251 { value = 0 }
    }
    return bytes
}
