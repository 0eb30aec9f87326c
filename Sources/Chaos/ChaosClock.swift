import Synchronization

/// The clock rules run on: instants are durations since an arbitrary fixed origin. Injected so
/// tests advance time by hand and never sleep.
public protocol ChaosClock: Sendable {
    func now() -> Duration
}

/// Monotonic wall time since the clock was created.
public struct SystemChaosClock: ChaosClock {
    private let origin = ContinuousClock.now
    public init() {}
    public func now() -> Duration { ContinuousClock.now - origin }
}

/// A clock that moves only when told to (tests).
public final class ManualChaosClock: ChaosClock {
    private let current: Mutex<Duration>
    public init(_ start: Duration = .zero) { current = Mutex(start) }
    public func now() -> Duration { current.withLock { $0 } }
    public func advance(by step: Duration) { current.withLock { $0 += step } }
    public func set(_ instant: Duration) { current.withLock { $0 = instant } }
}
