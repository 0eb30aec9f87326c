import Chaos
import BundleFormat
import Foundation

/// What went wrong with one request, as a rule can make it happen again: at most one wire action
/// and a delay before the response (the rule schema's own limits).
public struct HARFault: Sendable, Hashable {
    public enum Wire: Sendable, Hashable {
        /// The status, with the headers worth repeating (Retry-After, WWW-Authenticate).
        case status(Int, headers: [Header])
        /// No response head: the connection was reset (or failed in a way a rule can only imitate).
        case resetBeforeHeaders
        /// Reset after this many body bytes.
        case resetAfter(bytes: Int)
        /// No answer; the connection is closed after this many seconds (nil: never).
        case hang(seconds: Int?)
        /// Fewer bytes than Content-Length (nil: unknown how many arrived), then closed.
        case truncate(afterBytes: Int?)
        /// The body stopped after this many bytes for this many seconds.
        case stall(afterBytes: Int, seconds: Int)
        /// The body arrived at this rate.
        case throttle(bitsPerSecond: Int)
    }

    public struct Header: Sendable, Hashable {
        public var name: String
        public var value: String
    }

    public var wire: Wire?
    /// Seconds added before the response starts.
    public var delay: Double?

    public init(wire: Wire? = nil, delay: Double? = nil) { self.wire = wire; self.delay = delay }

    /// "503", "reset", "hang", "truncated", "slow-first-byte"…: the words of a rule id.
    var idWords: String {
        var words: [String] = []
        switch wire {
        case .status(let code, _)?: words.append(String(code))
        case .resetBeforeHeaders?: words.append("reset")
        case .resetAfter?: words.append("reset-mid-body")
        case .hang?: words.append("hang")
        case .truncate?: words.append("truncated")
        case .stall?: words.append("stalled")
        case .throttle?: words.append("slow-body")
        case nil: break
        }
        if delay != nil { words.append("slow-first-byte") }
        return words.joined(separator: "-")
    }

    /// "503", "a reset before any response", "a 2.5 s delay then 503"…: for descriptions.
    var words: String {
        var text: String
        switch wire {
        case .status(let code, _)?: text = String(code)
        case .resetBeforeHeaders?: text = "a connection reset before any response"
        case .resetAfter(let bytes)?: text = "a connection reset after \(bytes) body bytes"
        case .hang(let seconds)?: text = seconds.map { "no answer, closed after \($0) s" } ?? "no answer at all"
        case .truncate(let bytes)?: text = bytes.map { "a body cut short after \($0) bytes" } ?? "a body cut short"
        case .stall(let bytes, let seconds)?: text = "a body that stops after \(bytes) bytes for \(seconds) s"
        case .throttle(let bits)?: text = "a body at \(HARFault.rateText(bits))"
        case nil: text = ""
        }
        guard let delay else { return text }
        let wait = "\(HARFault.secondsText(delay)) s more to the first byte"
        return text.isEmpty ? wait : "\(text) after \(wait)"
    }

    /// "2.5" (seconds, at most one decimal).
    static func secondsText(_ seconds: Double) -> String {
        let tenths = (seconds * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : String(tenths / 10)
    }

    /// "290 kbit/s", "1.2 Mbit/s".
    static func rateText(_ bitsPerSecond: Int) -> String {
        bitsPerSecond >= 1_000_000 ? "\(secondsText(Double(bitsPerSecond) / 1_000_000)) Mbit/s" : "\(bitsPerSecond / 1000) kbit/s"
    }
}

/// What the HAR shows happened to one request.
public enum HAROutcome: Sendable, Equatable {
    /// Answered, as fast as its peers.
    case ok
    /// Answered from the browser's cache: the server never saw it.
    case cached
    /// The client gave up on it before it could go wrong (a player switching level cancels loads).
    case cancelled(String)
    case fault(HARFault)

    public var fault: HARFault? { if case .fault(let fault) = self { fault } else { nil } }
}

/// One entry's outcome, with what in the HAR shows it and how closely a rule can reproduce it.
public struct HARObservation: Sendable, Equatable {
    public var outcome: HAROutcome
    /// "503", "net::ERR_CONNECTION_RESET with no response", "2.3 s to the first byte where peers took 0.05 s"…
    public var evidence: String
    /// Set when the rule only approximates what happened (a refused connection replayed as a reset).
    public var approximation: String?
}

/// When a response counts as slow: much slower than its peers (the other requests of the same
/// kind in the HAR that were answered normally), and slow in absolute terms too, so that the
/// jitter of fast local answers is never taken for a fault.
public struct HARThresholds: Sendable, Equatable {
    /// A first byte is late when it took at least `delayFactor` × the peers' median and at least
    /// `minimumDelay` seconds.
    public var delayFactor = 4.0
    public var minimumDelay = 1.0
    /// A body is slow when it arrived at most at the peers' median rate ÷ `throttleFactor`, took at
    /// least `minimumSlowBody` seconds and had at least `minimumThrottleBytes` (rates of small
    /// bodies say little).
    public var throttleFactor = 4.0
    public var minimumSlowBody = 1.0
    public var minimumThrottleBytes = 16 * 1024
    /// Peers needed for a median; with fewer, nothing is judged slow.
    public var minimumPeers = 3
    /// A request the client gave up on with no response counts as a hang (not as a cancel) after
    /// this long, and after `delayFactor` × the peers' median first byte.
    public var minimumHang = 2.0

    public init() {}
}

/// The medians a request is compared with, per resource kind.
struct HARPeers {
    private var waits: [String: [Double]] = [:]
    private var rates: [String: [Double]] = [:]

    static func group(_ classification: HARClassification) -> String {
        classification.target.map { $0.kind.rawValue } ?? "playlist"
    }

    /// Seconds the server took to start answering: `wait` (Chrome's "waiting for server response"),
    /// plus `blocked` in hlschaos's own HARs, where it is the rule's delay rather than the
    /// browser's queue.
    static func serverWait(_ entry: HAREntry, isHLSChaos: Bool) -> Double? {
        guard let wait = entry.timings.wait else { return nil }
        return wait + (isHLSChaos ? entry.timings.blocked ?? 0 : 0)
    }

    /// Bytes per second of the body, when it is big enough to say.
    static func bodyRate(_ entry: HAREntry, minimumBytes: Int) -> (rate: Double, bytes: Int, seconds: Double)? {
        guard let bytes = entry.receivedBytes, bytes >= minimumBytes, let receive = entry.timings.receive, receive > 0 else { return nil }
        return (Double(bytes) / receive, bytes, receive)
    }

    /// A blocking playlist reload (`_HLS_msn`) waits for the next segment on purpose.
    static func isBlockingReload(_ entry: HAREntry) -> Bool { entry.url.contains("_HLS_msn=") }

    init(entries: [HAREntry], classifications: [HARClassification], isHLSChaos: Bool, thresholds: HARThresholds) {
        for (entry, classification) in zip(entries, classifications) where classification.isHLS {
            guard (200..<300).contains(entry.status), entry.error == nil, !entry.fromCache else { continue }
            if entry.ending != nil, entry.ending != "complete" { continue }
            let group = Self.group(classification)
            if !Self.isBlockingReload(entry), let wait = Self.serverWait(entry, isHLSChaos: isHLSChaos) {
                waits[group, default: []].append(wait)
            }
            if let body = Self.bodyRate(entry, minimumBytes: thresholds.minimumThrottleBytes) {
                rates[group, default: []].append(body.rate)
            }
        }
    }

    func medianWait(_ group: String, minimum: Int) -> Double? { Self.median(waits[group] ?? [], minimum: minimum) }
    func medianRate(_ group: String, minimum: Int) -> Double? { Self.median(rates[group] ?? [], minimum: minimum) }

    static func median(_ values: [Double], minimum: Int) -> Double? {
        guard values.count >= max(minimum, 1) else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// Reads each HLS entry's outcome off the HAR.
struct HAROutcomeReader {
    let thresholds: HARThresholds
    let peers: HARPeers
    let isHLSChaos: Bool

    init(log: HARLog, classifications: [HARClassification], thresholds: HARThresholds) {
        self.thresholds = thresholds
        self.isHLSChaos = log.isHLSChaos
        peers = HARPeers(entries: log.entries, classifications: classifications, isHLSChaos: log.isHLSChaos, thresholds: thresholds)
    }

    private enum Failure { case abort, timeout, reset, truncation, other }

    /// Chrome's net::ERR_* names, Safari's (CFNetwork's) sentences, Charles's statuses and
    /// hlschaos's `_ending` words, sorted into what a rule can do about them.
    private static func failure(_ entry: HAREntry) -> Failure? {
        switch entry.ending {
        case "truncated"?: return .truncation
        case "reset"?: return .reset
        case "hang"?: return .timeout
        case "clientAbort"?: return .abort
        case "closed"?: return .reset
        default: break
        }
        guard let error = entry.error?.lowercased() else { return nil }
        if error.contains("aborted") || error.contains("cancel") { return .abort }
        if error.contains("timed_out") || error.contains("timed out") || error.contains("timeout") { return .timeout }
        if error.contains("content_length_mismatch") || error.contains("incomplete_chunked") || error.contains("truncat") {
            return .truncation
        }
        if error.contains("reset") || error.contains("connection_closed") || error.contains("empty_response")
            || error.contains("connection was lost") || error.contains("closed") {
            return .reset
        }
        return .other
    }

    func observe(_ entry: HAREntry, _ classification: HARClassification) -> HARObservation {
        if entry.fromCache { return HARObservation(outcome: .cached, evidence: "answered from the browser's cache") }
        let group = HARPeers.group(classification)
        let failure = Self.failure(entry)
        let said = entry.error.map { " (\($0))" } ?? ""
        let received = entry.receivedBytes ?? 0

        guard entry.status != 0 else {
            // No response head.
            let time = entry.time
            switch failure {
            case .abort?:
                let peerWait = peers.medianWait(group, minimum: thresholds.minimumPeers) ?? 0
                if let time, time >= max(thresholds.minimumHang, thresholds.delayFactor * peerWait) {
                    return observation(.hang(seconds: Self.wholeSeconds(time)), delay: nil,
                                       "no response in \(HARFault.secondsText(time)) s, then the client gave up\(said)")
                }
                return HARObservation(outcome: .cancelled("cancelled by the client\(said)"), evidence: "cancelled by the client\(said)")
            case .timeout?:
                return observation(.hang(seconds: time.map(Self.wholeSeconds)), delay: nil,
                                   "no response\(time.map { " in \(HARFault.secondsText($0)) s" } ?? "")\(said)")
            case .reset?, .truncation?:
                return observation(.resetBeforeHeaders, delay: nil, "no response\(said)")
            case .other?, nil:
                let what = entry.error.map { "the HAR says \"\($0)\"" } ?? "the HAR has no response and no error for it"
                return observation(.resetBeforeHeaders, delay: nil, "no response\(said)",
                                   approximation: "\(what); a rule cannot refuse a connection or fail a name lookup, so it resets the connection before any response")
            }
        }

        let delay = lateFirstByte(entry, group: group)
        var evidence = "\(entry.status)"
        if let delay { evidence += ", \(delay.evidence)" }

        if entry.status >= 400 {
            // Header values a rule can send: one line, no NUL.
            let kept = ["Retry-After", "WWW-Authenticate"].compactMap { name in
                entry.responseHeader(name).flatMap { value in
                    value.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F } ? nil : HARFault.Header(name: name, value: value)
                }
            }
            return observation(.status(entry.status, headers: kept), delay: delay?.seconds, evidence)
        }

        switch failure {
        case .truncation?:
            let length = entry.contentLength.map { " of \($0)" } ?? ""
            return observation(.truncate(afterBytes: entry.receivedBytes), delay: delay?.seconds,
                               "\(evidence), cut short after \(received)\(length) bytes\(said)",
                               approximation: entry.receivedBytes == nil ? "the HAR does not say how many bytes arrived: half the body is sent" : nil)
        case .reset?:
            return observation(.resetAfter(bytes: received), delay: delay?.seconds, "\(evidence), reset after \(received) body bytes\(said)")
        case .timeout?:
            let stalled = max(1, Self.wholeSeconds((entry.timings.receive ?? entry.time ?? 1)))
            return observation(.stall(afterBytes: received, seconds: stalled), delay: delay?.seconds,
                               "\(evidence), the body stopped after \(received) bytes and timed out\(said)")
        case .abort?:
            if let slow = slowBody(entry, group: group) {
                return observation(.throttle(bitsPerSecond: slow.bits), delay: delay?.seconds,
                                   "\(evidence), \(slow.evidence), then the client gave up\(said)")
            }
            return HARObservation(outcome: .cancelled("cancelled by the client during the body\(said)"),
                                  evidence: "cancelled by the client during the body\(said)")
        case .other?:
            return observation(.resetAfter(bytes: received), delay: delay?.seconds, "\(evidence), failed during the body\(said)",
                               approximation: "the HAR says \"\(entry.error ?? "")\"; replayed as a reset after the bytes that arrived")
        case nil:
            break
        }
        if let length = entry.contentLength, let got = entry.receivedBytes, got < length, entry.method != "HEAD",
           entry.status != 304, entry.status != 204, entry.ending == nil || entry.ending == "complete" {
            return observation(.truncate(afterBytes: got), delay: delay?.seconds,
                               "\(evidence), \(got) of the \(length) bytes Content-Length announced")
        }
        if let slow = slowBody(entry, group: group) {
            return observation(.throttle(bitsPerSecond: slow.bits), delay: delay?.seconds, "\(evidence), \(slow.evidence)")
        }
        if let delay { return observation(nil, delay: delay.seconds, evidence) }
        return HARObservation(outcome: .ok, evidence: evidence)
    }

    private func observation(_ wire: HARFault.Wire?, delay: Double?, _ evidence: String, approximation: String? = nil) -> HARObservation {
        HARObservation(outcome: .fault(HARFault(wire: wire, delay: delay)), evidence: evidence, approximation: approximation)
    }

    /// The extra wait before the first byte, when it is much longer than the peers'.
    private func lateFirstByte(_ entry: HAREntry, group: String) -> (seconds: Double, evidence: String)? {
        guard !HARPeers.isBlockingReload(entry), let wait = HARPeers.serverWait(entry, isHLSChaos: isHLSChaos),
              wait >= thresholds.minimumDelay,
              let median = peers.medianWait(group, minimum: thresholds.minimumPeers),
              wait >= thresholds.delayFactor * median else { return nil }
        let extra = Self.roundedDelay(wait - median)
        guard extra > 0 else { return nil }
        return (extra, "\(HARFault.secondsText(wait)) s to the first byte where its peers took \(Self.millisecondsText(median)) (median)")
    }

    /// The body's rate, when it is much slower than the peers'.
    private func slowBody(_ entry: HAREntry, group: String) -> (bits: Int, evidence: String)? {
        guard let body = HARPeers.bodyRate(entry, minimumBytes: thresholds.minimumThrottleBytes),
              body.seconds >= thresholds.minimumSlowBody,
              let median = peers.medianRate(group, minimum: thresholds.minimumPeers),
              body.rate * thresholds.throttleFactor <= median else { return nil }
        let bits = Self.roundedRate(body.rate * 8)
        let peerBits = Int(min(median * 8, 1e15))
        return (bits, "\(body.bytes) bytes in \(HARFault.secondsText(body.seconds)) s (\(HARFault.rateText(bits))) where its peers got \(HARFault.rateText(peerBits)) (median)")
    }

    /// The nearest whole second, at least 1 (a 3.0006 s hang is a 3 s hang).
    static func wholeSeconds(_ seconds: Double) -> Int { max(1, Int(min(seconds, maximumSeconds).rounded())) }

    /// Longer waits than a day are written as a day (a rule's durations are bounded).
    static let maximumSeconds = 86_400.0

    /// Tenths of a second below 10 s, whole seconds above.
    static func roundedDelay(_ seconds: Double) -> Double {
        seconds < 10 ? (seconds * 10).rounded() / 10 : min(seconds, maximumSeconds).rounded()
    }

    /// Two significant digits, rounded down (the replay is no faster than the HAR), at least 1 kbit/s.
    static func roundedRate(_ bitsPerSecond: Double) -> Int {
        guard bitsPerSecond >= 1000 else { return 1000 }
        guard bitsPerSecond < 1e15 else { return 1_000_000_000_000_000 }
        var scale = 1.0
        while bitsPerSecond / scale >= 100 { scale *= 10 }
        return max(1000, Int((bitsPerSecond / scale).rounded(.down) * scale))
    }

    static func millisecondsText(_ seconds: Double) -> String {
        seconds >= 1 ? "\(HARFault.secondsText(seconds)) s" : "\(Int((seconds * 1000).rounded())) ms"
    }
}
