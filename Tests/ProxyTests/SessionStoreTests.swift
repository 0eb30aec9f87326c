import Foundation
@testable import Proxy
import Testing

@Suite struct SessionStoreTests {
    @Test func sessionsExpireAfterTheIdleTimeAndStartAfresh() {
        let clock = ManualClock(Date(timeIntervalSince1970: 0))
        let store = SessionStore(idleTimeout: 60, now: { clock.now })
        let first = store.session(for: "tv")
        _ = store.session(for: "tv")
        #expect(first.requestCount == 2)
        #expect(store.session(for: nil).id == SessionStore.defaultID)
        clock.advance(by: 59)
        #expect(store.session(for: "tv") === first)
        clock.advance(by: 61)
        let second = store.session(for: "tv")
        #expect(second !== first)
        #expect(second.requestCount == 1)
        #expect(store.all.map(\.id) == ["tv"])  // the idle default session is gone too
    }
}

@Suite struct SessionCapacityTests {
    @Test func theLeastRecentlyUsedSessionMakesRoom() {
        let clock = ManualClock(Date(timeIntervalSince1970: 0))
        let store = SessionStore(idleTimeout: 600, capacity: 3, now: { clock.now })
        let a = store.session(for: "a")
        clock.advance(by: 1)
        _ = store.session(for: "b")
        clock.advance(by: 1)
        _ = store.session(for: "c")
        clock.advance(by: 1)
        #expect(store.session(for: "a") === a, "a used again: b is now the least recent")
        _ = store.session(for: "d")
        #expect(store.all.map(\.id) == ["a", "c", "d"])
        #expect(store.count == 3)
    }

    @Test func idleSessionsExpireFromTheOldEndAsRequestsArrive() {
        let clock = ManualClock(Date(timeIntervalSince1970: 0))
        let store = SessionStore(idleTimeout: 10, capacity: 100_000, now: { clock.now })
        for n in 0..<20_000 { _ = store.session(for: "s\(n)") }
        #expect(store.count == 20_000)
        clock.advance(by: 11)
        _ = store.session(for: "new")
        #expect(store.count == 1, "every idle session went with one request")
    }
}
