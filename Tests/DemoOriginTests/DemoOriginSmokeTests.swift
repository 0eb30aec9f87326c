import Testing
@testable import DemoOrigin

@Test func moduleBuilds() { #expect(Bool(true)) }
