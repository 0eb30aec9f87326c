import Addressing
import Foundation
import NIOConcurrencyHelpers

/// The devices seen by the forward proxy, by client address, and the session each one's requests
/// go to: its proxy user, a name the control API gave its address, or `ip-<address>`.
public final class DeviceNames: Sendable {
    public struct Device: Sendable, Equatable {
        public var address: String
        public var session: String
        /// The session comes from a name set through the control API (not the address or a proxy user).
        public var named: Bool
        public var lastSeen: Date
    }

    private struct State {
        var names: [String: String] = [:]
        var seen: [String: Device] = [:]
    }
    private let state = NIOLockedValueBox(State())
    /// Addresses beyond this many are not remembered (a scan must not grow memory without bound).
    let capacity: Int

    public init(capacity: Int = 10_000) { self.capacity = capacity }

    /// One spelling per address (`fd00:0::1` and `fd00::1`, `::ffff:1.2.3.4` and `1.2.3.4` are one device).
    static func key(_ address: String) -> String { IPAddress(address)?.description ?? address.lowercased() }

    /// The session of a client that sent no proxy user.
    func session(forAddress address: String) -> String {
        let address = Self.key(address)
        return state.withLockedValue { state in
            let name = state.names[address]
            let session = name ?? ProxyCredentials.session(forClientAddress: address)
            remember(&state, Device(address: address, session: session, named: name != nil, lastSeen: Date()))
            return session
        }
    }

    /// A client that named its session by its proxy user.
    func saw(address: String, session: String) {
        let address = Self.key(address)
        state.withLockedValue { remember(&$0, Device(address: address, session: session, named: false, lastSeen: Date())) }
    }

    private func remember(_ state: inout State, _ device: Device) {
        if state.seen[device.address] != nil || state.seen.count < capacity { state.seen[device.address] = device }
    }

    /// Gives the device at `address` a session name (nil: back to `ip-<address>`).
    public func name(address: String, session: String?) {
        let address = Self.key(address)
        state.withLockedValue { state in
            state.names[address] = session
            if var device = state.seen[address] {
                device.session = session ?? ProxyCredentials.session(forClientAddress: address)
                device.named = session != nil
                state.seen[address] = device
            }
        }
    }

    /// Every device seen, and every named address, by address.
    public var devices: [Device] {
        state.withLockedValue { state in
            var all = state.seen
            for (address, name) in state.names where all[address] == nil {
                all[address] = Device(address: address, session: name, named: true, lastSeen: .distantPast)
            }
            return all.values.sorted { $0.address < $1.address }
        }
    }
}
