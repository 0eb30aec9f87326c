import CertificateAuthority
import Foundation
import Testing
import TestSupport

/// The .mobileconfig as Python's plistlib (a plist reader that is not ours) reads it.
@Suite struct AppleProfileTests {
    /// The profile's fields that matter, printed by plistlib as JSON.
    private func read(_ profile: [UInt8], folder: TemporaryFolder) async throws -> [String: Any] {
        let path = folder.path + "/hlschaos.mobileconfig"
        try Data(profile).write(to: URL(fileURLWithPath: path))
        let script = """
            import base64, json, plistlib, sys
            p = plistlib.load(open(sys.argv[1], 'rb'))
            c = p['PayloadContent'][0]
            print(json.dumps({
                'type': p['PayloadType'], 'uuid': p['PayloadUUID'], 'name': p['PayloadDisplayName'],
                'description': p['PayloadDescription'], 'identifier': p['PayloadIdentifier'], 'version': p['PayloadVersion'],
                'payloadType': c['PayloadType'], 'payloadUUID': c['PayloadUUID'], 'payloadName': c['PayloadDisplayName'],
                'payloadIdentifier': c['PayloadIdentifier'], 'der': base64.b64encode(c['PayloadContent']).decode(),
            }))
            """
        let run = try await ToolRun.run("python3", ["-c", script, path])
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    @Test func theProfileInstallsTheRootAndIsStableForIt() async throws {
        try await withTemporaryFolder("ca") { folder in
            let ca = try LocalCA.loadOrCreate(directory: folder.path + "/ca")
            let profile = AppleProfile.mobileconfig(for: ca)
            let fields = try await read(profile, folder: folder)
            #expect(fields["type"] as? String == "Configuration")
            #expect(fields["version"] as? Int == 1)
            #expect(fields["payloadType"] as? String == "com.apple.security.root")
            #expect(fields["der"] as? String == Data(ca.rootDER).base64EncodedString())
            #expect(fields["payloadName"] as? String == ca.commonName)
            let name = try #require(fields["name"] as? String)
            #expect(name.hasPrefix("hlschaos local CA " + ca.fingerprintSHA256.prefix(11)))
            #expect((fields["description"] as? String)?.contains(ca.fingerprintSHA256) == true)
            let uuid = /[0-9A-F]{8}-[0-9A-F]{4}-5[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}/
            let profileUUID = try #require(fields["uuid"] as? String)
            let payloadUUID = try #require(fields["payloadUUID"] as? String)
            #expect(profileUUID.wholeMatch(of: uuid) != nil)
            #expect(payloadUUID.wholeMatch(of: uuid) != nil)
            #expect(profileUUID != payloadUUID)

            // Same root, same profile; a new root, new identifiers.
            #expect(AppleProfile.mobileconfig(for: try LocalCA.loadOrCreate(directory: ca.directory)) == profile)
            let rotated = try await read(AppleProfile.mobileconfig(for: try LocalCA.rotate(directory: ca.directory)), folder: folder)
            #expect(rotated["uuid"] as? String != profileUUID)
            #expect(rotated["payloadUUID"] as? String != payloadUUID)
            #expect(rotated["identifier"] as? String != fields["identifier"] as? String)
        }
    }
}
