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
}
