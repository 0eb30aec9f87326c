import Foundation
import Records

/// Sizes as `--max-size` takes them and as recordings print them. K, M, G and T are powers of
/// 1024, like every size hlschaos prints ("1.5 MB" is 1.5 × 1024 × 1024 bytes); "KiB", "MiB",
/// "GiB" and "TiB" are accepted as the same units.
public enum ByteSize {
    private static let units: [(suffixes: [String], factor: Double)] = [
        (["tib", "tb", "t"], 1024 * 1024 * 1024 * 1024),
        (["gib", "gb", "g"], 1024 * 1024 * 1024),
        (["mib", "mb", "m"], 1024 * 1024),
        (["kib", "kb", "k"], 1024),
        (["b", ""], 1),
    ]

    /// "2GB", "500MB", "1.5G", "64KiB", "1000000": a positive number of bytes; nil otherwise.
    public static func parse(_ text: String) -> Int? {
        let lowered = text.lowercased().replacingOccurrences(of: " ", with: "")
        for unit in units {
            for suffix in unit.suffixes where lowered.hasSuffix(suffix) {
                let number = lowered.dropLast(suffix.count)
                guard !number.isEmpty, number.first != ".", number.last != ".",
                      number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                      number.filter({ $0 == "." }).count <= 1, let value = Double(number) else { continue }
                let bytes = (value * unit.factor).rounded()
                guard bytes >= 1, bytes < 9e18 else { return nil }
                return Int(bytes)
            }
        }
        return nil
    }

    /// "512 B", "1.5 KB", "12.3 MB", "2.0 GB": as records print sizes.
    public static func text(_ count: Int) -> String { RecordLine.bytes(count) }
}
