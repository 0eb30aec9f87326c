import CurlShim
import NIOConcurrencyHelpers
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
public enum AddressRefusal: Int32, Equatable, Sendable {
    case linkLocal = 1
    case metadata = 2
    case ownPortOnLoopback = 3
    case ownPortOnUnspecified = 4
    case ownPortOnInterface = 5

    /// The address is one of this process's listeners (a request there would loop back into it).
    public var isOwnListener: Bool { self == .ownPortOnLoopback || self == .ownPortOnUnspecified || self == .ownPortOnInterface }

    public var reason: String {
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
/// client's curl loop. Only its own ports change after init (`addOwnPort`, lock-free for the
/// curl thread's reads).
final class AddressPolicy: @unchecked Sendable {
    let pointer: OpaquePointer
    private let adding = NIOLock()

    init(_ configuration: AddressGuard) throws(UpstreamError) {
        if let bad = configuration.ownPorts.first(where: { !(1...65535).contains($0) }) {
            throw .setup("addressGuard.ownPorts: \(bad) is not a port (1 to 65535)")
        }
        guard let made = cs_address_policy_create(configuration.refuseLinkLocal ? 1 : 0) else {
            throw .setup("cannot read this machine's interface addresses for the address guard: \(String(cString: strerror(errno)))")
        }
        pointer = made
        for port in configuration.ownPorts { addOwnPort(port) }
    }

    /// Adds one of this process's listening ports (ignored beyond the shim's 64, a number no
    /// process here reaches: one proxy, one HTTPS and one control listener).
    func addOwnPort(_ port: Int) {
        guard (1...65535).contains(port) else { return }
        adding.withLock { _ = cs_address_policy_add_port(pointer, Int32(port)) }
    }

    func hasOwnPort(_ port: Int) -> Bool { cs_address_policy_has_port(pointer, Int32(port)) != 0 }

    deinit { cs_address_policy_free(pointer) }

    /// The refusal for a numeric address (IPv4, or IPv6 without brackets) and port; nil when
    /// allowed or not an address. The callbacks judge with the same C function.
    func refusal(address: String, port: Int) -> AddressRefusal? {
        AddressRefusal(rawValue: address.withCString { cs_address_policy_check_text(pointer, $0, Int32(port)) })
    }

    /// Interface addresses read at init (tests).
    var interfaceAddressCount: Int { cs_address_policy_interface_count(pointer) }
}

/// The ports this process listens on (the proxy, its HTTPS listener, the control API), each added
/// once bound, and how guarded transfers judge an address: the one list and the one judgement that
/// both libcurl's callbacks and the proxy's own checks (a `CONNECT`'s resolved address) use.
public struct ListeningPorts: Sendable {
    let policy: AddressPolicy

    public func add(_ port: Int) { policy.addOwnPort(port) }

    public func contains(_ port: Int) -> Bool { policy.hasOwnPort(port) }

    /// Why a guarded connection to `address:port` would be refused, or nil when it would not be
    /// or `address` is not a numeric IPv4/IPv6 address (brackets allowed).
    public func refusal(address: String, port: Int) -> AddressRefusal? {
        let bare = address.hasPrefix("[") && address.hasSuffix("]") ? String(address.dropFirst().dropLast()) : address
        return policy.refusal(address: bare, port: port)
    }
}

extension UpstreamClient {
    /// This process's listening ports, as the client's guarded transfers refuse them.
    public var listeningPorts: ListeningPorts { ListeningPorts(policy: loop.sharedOptions.addressPolicy) }
}
