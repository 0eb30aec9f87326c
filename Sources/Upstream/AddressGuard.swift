import CurlShim
#if canImport(Glibc)
import Glibc
#endif

/// What a transfer with `UpstreamRequest.guardAddresses` may not connect to: the forward proxy
/// fetches URLs that devices ask for, and must not be turned against this machine or the cloud
/// metadata service. Checked on the exact address curl connects to (after DNS and resolve
/// overrides, for every redirect) and on a reused connection's address before each request.
public struct AddressGuard: Sendable, Equatable {
    /// 169.254.0.0/16 (169.254.169.254 is the metadata service), fe80::/10 and fd00:ec2::254.
    public var refuseLinkLocal: Bool = true
    /// This process's listening ports: refused on loopback, on the unspecified address and on
    /// any of this machine's interface addresses (read once when the client starts).
    public var ownPorts: [Int] = []

    public init(refuseLinkLocal: Bool = true, ownPorts: [Int] = []) {
        self.refuseLinkLocal = refuseLinkLocal
        self.ownPorts = ownPorts
    }
}

/// Why the guard refused an address.
enum AddressRefusal: Int32, Equatable {
    case linkLocal = 1
    case metadata = 2
    case ownPortOnLoopback = 3
    case ownPortOnUnspecified = 4
    case ownPortOnInterface = 5

    var reason: String {
        switch self {
        case .linkLocal: return "a link-local address"
        case .metadata: return "the cloud metadata service's address"
        case .ownPortOnLoopback: return "this proxy's own port on loopback"
        case .ownPortOnUnspecified: return "this proxy's own port on the unspecified address, which reaches this machine"
        case .ownPortOnInterface: return "this proxy's own port on one of this machine's addresses"
        }
    }
}

/// `AddressGuard` in the shim's form, with this machine's interface addresses, made once per
/// client. Guarded transfers point at it from their callbacks, so it lives as long as the
/// client's curl loop; it is never written after init, so the curl thread reads it without a lock.
final class AddressPolicy: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ configuration: AddressGuard) throws(UpstreamError) {
        if let bad = configuration.ownPorts.first(where: { !(1...65535).contains($0) }) {
            throw .setup("addressGuard.ownPorts: \(bad) is not a port (1 to 65535)")
        }
        let ports = configuration.ownPorts.map { Int32($0) }
        let made = ports.withUnsafeBufferPointer {
            cs_address_policy_create(configuration.refuseLinkLocal ? 1 : 0, $0.baseAddress, $0.count)
        }
        guard let made else {
            throw .setup("cannot read this machine's interface addresses for the address guard: \(String(cString: strerror(errno)))")
        }
        pointer = made
    }

    deinit { cs_address_policy_free(pointer) }

    /// The refusal for a numeric address (IPv4, or IPv6 without brackets) and port; nil when
    /// allowed or not an address. The callbacks judge with the same C function.
    func refusal(address: String, port: Int) -> AddressRefusal? {
        AddressRefusal(rawValue: address.withCString { cs_address_policy_check_text(pointer, $0, Int32(port)) })
    }

    /// Interface addresses read at init (tests).
    var interfaceAddressCount: Int { cs_address_policy_interface_count(pointer) }
}
