import Testing
@testable import HLS

@Test func moduleBuilds() { #expect(Bool(true)) }
