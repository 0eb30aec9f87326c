import Testing
@testable import Proxy

@Test func moduleBuilds() { #expect(Bool(true)) }
