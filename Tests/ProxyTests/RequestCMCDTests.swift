import NIOHTTP1
import Testing
@testable import Proxy

/// The cheap look for CMCD every request pays, and the session name a `sid` gives.
@Suite struct RequestCMCDTests {
    @Test(arguments: [
        ("/seg.ts?CMCD=bl%3D1", true), ("/seg.ts?a=1&CMCD=", true), ("http://cdn/seg.ts?x&CMCD=su", true),
        ("/seg.ts", false), ("/seg.ts?cmcd=bl%3D1", false), ("/seg.ts?xCMCD=1", false), ("/seg.ts?CMCD", false),
        ("/seg.ts?a=CMCD=1", false), ("/seg.ts#?CMCD=1", false), ("/seg.ts?a=1#&CMCD=1", false), ("/CMCD=1/seg.ts", false),
    ])
    func findsTheQueryArgumentByItsExactName(_ target: String, _ carried: Bool) {
        #expect(RequestCMCD.queryHasArgument(target) == carried)
    }

    @Test func findsTheHeadersInAnyCase() {
        let head = { (headers: HTTPHeaders) in HTTPRequestHead(version: .http1_1, method: .GET, uri: "/seg.ts", headers: headers) }
        #expect(RequestCMCD.isCarried(head(["cmcd-status": "bs"]), target: "/seg.ts"))
        #expect(!RequestCMCD.isCarried(head(["CMCD-Other-Long": "x", "X-CMCD-Request": "bl=1"]), target: "/seg.ts"))
        #expect(RequestCMCD.parse(head(["User-Agent": "x"]), target: "/seg.ts", limits: .default) == nil)
        #expect(RequestCMCD.parse(head(["CMCD-Request": "bl=1800"]), target: "/seg.ts", limits: .default)?.bufferLength == 1800)
    }

    @Test func aSidNamesASessionWithinTheSessionGrammar() {
        #expect(RequestCMCD.sessionName(device: "ip-10-0-0-2", sid: "6e2fb550-c457-11e9-bb97-0800200c9a66")
            == "ip-10-0-0-2.6e2fb550-c457-11e9-bb97-0800200c9a66")
        #expect(RequestCMCD.sessionName(device: "tv", sid: "app one/é") == "tv.app-one--")
        #expect(RequestCMCD.sessionName(device: "tv", sid: "//  ") == nil)
        let long = RequestCMCD.sessionName(device: "ip-10-0-0-2", sid: String(repeating: "a", count: 200))
        #expect(long?.count == 64)
        #expect(ProxyControl.isValidSessionID(long ?? ""))
    }
}
