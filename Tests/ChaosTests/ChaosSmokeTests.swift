import Testing
@testable import Chaos

@Test func moduleBuilds() { #expect(Bool(true)) }
