import Foundation

/// "2 cores, AMD EPYC 7B13, Linux 6.18.44": the machine a matrix or a benchmark ran on.
public enum MachineDescription {
    public static func current() -> String {
        var parts = ["\(ProcessInfo.processInfo.activeProcessorCount) cores"]
        if let cpu = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
           let line = cpu.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
           let model = line.split(separator: ":", maxSplits: 1).last {
            parts.append(model.trimmingCharacters(in: .whitespaces))
        }
        var system = utsname()
        uname(&system)
        let release = withUnsafeBytes(of: &system.release) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        parts.append("Linux \(release)")
        return parts.joined(separator: ", ")
    }

    /// The 1-minute load average now (`/proc/loadavg`); nil where the system has none.
    public static func loadAverage() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        return text.split(separator: " ").first.flatMap { Double($0) }
    }

    /// "1-minute load average 1.2–3.4 during the run": the load the players ran under (a player
    /// starved of CPU stalls for reasons that are not the network), from samples taken at the
    /// start and as each cell ended; nil without a sample.
    public static func loadWords(_ samples: [Double]) -> String? {
        guard let low = samples.min(), let high = samples.max() else { return nil }
        let range = String(format: "%.1f", low) == String(format: "%.1f", high)
            ? String(format: "%.1f", high) : String(format: "%.1f–%.1f", low, high)
        return "1-minute load average \(range) during the run"
    }
}
