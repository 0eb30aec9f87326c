import Testing
@testable import Upstream

@Test func moduleBuilds() { #expect(Bool(true)) }
