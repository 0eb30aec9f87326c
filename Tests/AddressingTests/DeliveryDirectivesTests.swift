import Addressing
import Testing

@Suite struct DeliveryDirectivesTests {
    @Test func appliedDirectivesReplaceTheOnesATargetHad() {
        #expect(DeliveryDirectives(msn: 273, part: 3).applied(to: "/v0/index.m3u8?token=a&_HLS_msn=1")
            == "/v0/index.m3u8?token=a&_HLS_msn=273&_HLS_part=3")
        #expect(DeliveryDirectives(msn: 9, skip: true).applied(to: "http://cdn/v0/index.m3u8") == "http://cdn/v0/index.m3u8?_HLS_msn=9&_HLS_skip=YES")
        #expect(DeliveryDirectives().applied(to: "/v0/index.m3u8?_HLS_msn=1&_HLS_part=0") == "/v0/index.m3u8")
    }

    @Test func whatIsAppliedParsesBack() throws {
        let directives = DeliveryDirectives(msn: 42, part: 0, skip: true)
        #expect(try DeliveryDirectives.parse(target: directives.applied(to: "/a.m3u8?x=1")).get() == directives)
    }
}
