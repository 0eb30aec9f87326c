import Foundation
import NIOCore
import NIOPosix

/// The names and addresses this machine is reached by: what device URLs print, and what the HTTPS
/// listener's certificate names.
public enum MachineNames {
    /// Addresses a device on the network can use to reach this machine (non-loopback IPv4 first,
    /// IPv6 in brackets, link-local left out).
    public static func reachableAddresses() -> [String] {
        guard let devices = try? System.enumerateDevices() else { return [] }
        var v4: [String] = []
        var v6: [String] = []
        for device in devices {
            guard let address = device.address, let ip = address.ipAddress else { continue }
            switch address {
            case .v4 where !ip.hasPrefix("127."): v4.append(ip)
            case .v6 where ip != "::1" && !ip.lowercased().hasPrefix("fe80"): v6.append("[\(ip)]")
            default: continue
            }
        }
        return Array(Set(v4)).sorted() + Array(Set(v6)).sorted()
    }

    /// gethostname(2): Foundation's `hostName` resolves the name first, which can take seconds.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// What a certificate for this machine names: its host name, localhost, the loopback addresses,
    /// every reachable address, and the listening host when it is a specific one.
    static func current(listeningOn host: String) -> [String] {
        var names = [hostName().lowercased(), "localhost", "127.0.0.1", "::1"]
        names += reachableAddresses().map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) }
        if host != "0.0.0.0", host != "::" { names.append(host) }
        var seen = Set<String>()
        return names.filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}
