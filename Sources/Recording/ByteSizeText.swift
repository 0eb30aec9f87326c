import Foundation

/// Sizes as people write them on a command line: `2GB`, `500MB`, `1.5G`, `64k`, `1048576`
/// (K, M, G, T are powers of 1024; a trailing `B` or `iB` is optional).
public enum ByteSizeText {
    public static func parse(_ text: String) -> Int? {
        var number = text.trimmingCharacters(in: .whitespaces).lowercased()
        for suffix in ["ib", "b"] where number.hasSuffix(suffix) && number.count > suffix.count {
            number.removeLast(suffix.count)
            break
        }
        var multiplier = 1.0
        if let last = number.last, let power = ["k": 1.0, "m": 2.0, "g": 3.0, "t": 4.0][String(last)] {
            multiplier = pow(1024, power)
            number.removeLast()
        }
        guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value > 0, value.isFinite else { return nil }
        let bytes = value * multiplier
        guard bytes >= 1, bytes < Double(Int.max) else { return nil }
        return Int(bytes)
    }
}
