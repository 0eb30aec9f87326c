import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Tells the operator that a limit bit, without a log line per occurrence: the first time, then at
/// most once a minute with how many times it bit since the last line. Every bound of the proxy
/// (connections, sessions, caches, history, allowlist) reports through one of these.
final class LimitNotice: Sendable {
    private struct State {
        var count = 0
        var unreported = 0
        var lastLog: NIODeadline?
    }

    let configKey: String
    private let interval: TimeAmount
    private let logger: Logger
    private let state = NIOLockedValueBox(State())

    init(configKey: String, logger: Logger, interval: TimeAmount = .seconds(60)) {
        self.configKey = configKey
        self.logger = logger
        self.interval = interval
    }

    /// Times the limit bit so far (metrics, tests).
    var count: Int { state.withLockedValue { $0.count } }

    /// Records one occurrence; `message` gets the number of occurrences it reports.
    func hit(_ message: (Int) -> String) {
        let now = NIODeadline.now()
        let report = state.withLockedValue { state -> Int? in
            state.count += 1
            state.unreported += 1
            if let last = state.lastLog, now - last < interval { return nil }
            state.lastLog = now
            defer { state.unreported = 0 }
            return state.unreported
        }
        if let report { logger.warning("\(message(report)) (config \"\(configKey)\")") }
    }
}
