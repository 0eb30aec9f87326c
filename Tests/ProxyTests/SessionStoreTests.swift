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
