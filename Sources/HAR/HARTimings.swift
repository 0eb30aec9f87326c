import BundleFormat
import Records
import Foundation
import JSON

/// One HAR entry's `timings`, in whole microseconds (-1: the phase does not apply), read off a
/// record. The proxy is the server the HAR's client talked to, and what it knows about the time
/// before its answer is the fault's delay and libcurl's view of the upstream fetch:
///
///     |<- blocked ->|<- connect ->|<- send ->|<- wait ->|<- receive ->|
///       the rule's    upstream       0         upstream    the rest: body
///       delay         connect                  first byte  to the client
///                                              − connect
///
/// - `blocked`: the `delay` action (it runs before the upstream fetch or the injected answer),
///   -1 without one.
/// - `dns`, `ssl`: -1 (libcurl's connect time includes name resolution; TLS time lands in wait).
/// - `connect`: libcurl's connect time, -1 when there was no fetch or the connection was reused
///   (libcurl reports 0).
/// - `send`: 0 (the request head is not timed on its own).
/// - `wait`: upstream first byte − connect when a response went out and the upstream answered;
///   otherwise everything left (an injected status, a hang, a reset before headers, an upstream
///   failure: the client was waiting for a head the whole time).
/// - `receive`: the rest of the record's duration.
///
/// Phases are clamped in that order so that the non-negative ones always add up to `total` (the
/// record's duration), as HAR requires of `entry.time`.
struct HARTimings: Equatable, Sendable {
    var blocked: Int64 = -1
    var dns: Int64 = -1
    var connect: Int64 = -1
    var send: Int64 = 0
    var wait: Int64 = 0
    var receive: Int64 = 0
    var ssl: Int64 = -1

    /// `entry.time`: the sum of the phases that apply (`ssl` is part of `connect` in HAR).
    var total: Int64 { [blocked, dns, connect, send, wait, receive].reduce(0) { $0 + max($1, 0) } }

    init(blocked: Int64 = -1, dns: Int64 = -1, connect: Int64 = -1, send: Int64 = 0, wait: Int64 = 0,
         receive: Int64 = 0, ssl: Int64 = -1) {
        self.blocked = blocked; self.dns = dns; self.connect = connect; self.send = send
        self.wait = wait; self.receive = receive; self.ssl = ssl
    }

    init(record: RequestRecord) {
        var remaining = Self.micros(record.duration) ?? 0
        /// A phase that happened, cut to what is left of the duration; -1 when it did not.
        func take(_ value: Int64?) -> Int64 {
            guard let value, value > 0 else { return -1 }
            let taken = min(value, remaining)
            remaining -= taken
            return taken
        }
        blocked = take(Self.delaySeconds(in: record.actions).flatMap(Self.micros))
        let upstreamConnect = record.upstream?.connect.flatMap(Self.micros) ?? 0
        connect = take(upstreamConnect)
        if record.status != nil, let firstByte = record.upstream?.firstByte.flatMap(Self.micros), firstByte > 0 {
            wait = min(max(firstByte - upstreamConnect, 0), remaining)
            remaining -= wait
            receive = remaining
        } else {
            wait = remaining
            receive = 0
        }
    }

    /// The `timings` object, in the spec's order; phases that do not apply are written -1.
    var json: JSONValue {
        func phase(_ micros: Int64) -> JSONValue { micros < 0 ? .int(-1) : .milliseconds(micros) }
        return .object([
            ("blocked", phase(blocked)),
            ("dns", phase(dns)),
            ("connect", phase(connect)),
            ("send", phase(send)),
            ("wait", phase(wait)),
            ("receive", phase(receive)),
            ("ssl", phase(ssl)),
        ])
    }

    /// Seconds to whole microseconds; nil for NaN and infinities, negatives become 0 and anything
    /// beyond a year is capped (a record's clock cannot be trusted that far).
    static func micros(_ seconds: Double) -> Int64? {
        guard seconds.isFinite else { return nil }
        let capped = min(max(seconds, 0), 365 * 86_400)
        return Int64((capped * 1_000_000).rounded())
    }

    /// The length of the `delay` action; nil without one.
    static func delaySeconds(in actions: [RequestRecord.Action]) -> Double? {
        for action in actions { if case .delay(let seconds) = action.kind { return seconds } }
        return nil
    }
}
