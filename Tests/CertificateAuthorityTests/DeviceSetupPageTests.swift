import CertificateAuthority
import Foundation
import Testing
import TestSupport

/// What the setup page hands a device: the page, the root in three forms, nothing else.
@Suite struct DeviceSetupPageTests {
    @Test func theRootIsOfferedInThreeFormsAndThePageLinksToEach() throws {
        try withTemporaryFolder("ca") { folder in
            let ca = try LocalCA.loadOrCreate(directory: folder.path + "/ca")
            let page = DeviceSetupPage(root: DeviceSetupPage.Root(ca), forward: true)
            let pem = try #require(page.file(named: "ca.pem", proxyHost: nil, proxyPort: 8080))
            #expect(pem.body == Array(ca.rootPEM.utf8) && pem.contentType == "application/x-pem-file" && pem.attachmentName == "hlschaos-ca.pem")
            let der = try #require(page.file(named: "ca.crt", proxyHost: nil, proxyPort: 8080))
            #expect(der.body == ca.rootDER && der.attachmentName == "hlschaos-ca.crt")
            let profile = try #require(page.file(named: "hlschaos.mobileconfig", proxyHost: nil, proxyPort: 8080))
            #expect(profile.body == AppleProfile.mobileconfig(for: ca) && profile.contentType == "application/x-apple-aspen-config")
            let html = try #require(page.file(named: "setup", proxyHost: "192.168.1.20", proxyPort: 8080))
            #expect(html.contentType == "text/html; charset=utf-8" && html.attachmentName == nil)
            let text = String(decoding: html.body, as: UTF8.self)
            #expect(text.contains(ca.fingerprintSHA256))
            for link in ["/hlschaos/ca.pem", "/hlschaos/ca.crt", "/hlschaos/hlschaos.mobileconfig"] {
                #expect(text.contains("href=\"\(link)\""), "\(link) is linked")
            }
            #expect(text.contains("Server <b>192.168.1.20</b>, port <b>8080</b>"))
            #expect(page.file(named: "ca.key", proxyHost: nil, proxyPort: 8080) == nil)
            #expect(page.file(named: "../ca/ca-key.pem", proxyHost: nil, proxyPort: 8080) == nil)
        }
    }

    @Test func withoutARootThereIsOnlyThePageAndItSaysWhy() {
        let page = DeviceSetupPage(root: nil, forward: false)
        #expect(page.file(named: "ca.pem", proxyHost: nil, proxyPort: 8080) == nil)
        #expect(page.file(named: "hlschaos.mobileconfig", proxyHost: nil, proxyPort: 8080) == nil)
        let text = page.html(proxyHost: nil, proxyPort: 8080)
        #expect(text.contains("TLS interception is off"))
        #expect(text.contains("Forward mode is off"))
    }

    @Test func theHostADeviceSentIsEscaped() {
        let page = DeviceSetupPage(root: nil, forward: true)
        let text = page.html(proxyHost: "<script>\"x\"&", proxyPort: 8080)
        #expect(text.contains("Server <b>&lt;script&gt;&quot;x&quot;&amp;</b>"))
        #expect(!text.contains("<script>"))
    }
}
