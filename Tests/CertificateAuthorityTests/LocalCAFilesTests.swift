import CertificateAuthority
import Foundation
import Testing
import TestSupport

/// The CA's folder: made once, read back the same, guarded, and refused with a fix when broken.
@Suite struct LocalCAFilesTests {
    @Test func firstUseMakesTheFolderAndKeyOwnerOnlyAndAReloadIsTheSameCA() throws {
        try withTemporaryFolder("ca") { folder in
            let directory = folder.path + "/data/ca"
            let made = try LocalCA.loadOrCreate(directory: directory)
            #expect(made.isNew)
            #expect(made.directory == directory)
            #expect(made.certificatePath == directory + "/root.pem")
            #expect(made.privateKeyPath == directory + "/root-key.pem")
            #expect(try permissions(directory) == 0o700)
            #expect(try permissions(made.privateKeyPath) == 0o600)
            #expect(try String(contentsOfFile: made.certificatePath, encoding: .utf8) == made.rootPEM)
            #expect(try String(contentsOfFile: made.privateKeyPath, encoding: .utf8).hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
            #expect(made.commonName.hasPrefix("hlschaos local CA ("))
            #expect(made.commonName.utf8.count <= 64)
            #expect(made.fingerprintSHA256.wholeMatch(of: /([0-9A-F]{2}:){31}[0-9A-F]{2}/) != nil)
            // About ten years.
            #expect(abs(made.notAfter.timeIntervalSinceNow - 3650 * 86_400) < 86_400)

            let again = try LocalCA.loadOrCreate(directory: directory)
            #expect(!again.isNew)
            #expect(again.fingerprintSHA256 == made.fingerprintSHA256)
            #expect(again.rootDER == made.rootDER)
            #expect(again.commonName == made.commonName)
            #expect(again.notAfter == made.notAfter)
        }
    }

    @Test func aKeyOtherUsersCanReadIsRefusedWithTheChmodThatFixesIt() throws {
        try withTemporaryFolder("ca") { folder in
            let ca = try LocalCA.loadOrCreate(directory: folder.path)
            for mode in [0o644, 0o640, 0o604, 0o620] {
                try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: ca.privateKeyPath)
                let error = #expect(throws: LocalCA.Error.self) { try LocalCA.loadOrCreate(directory: folder.path) }
                #expect(error?.kind == .keyExposed)
                #expect(error?.description.contains("chmod 600 \(ca.privateKeyPath)") == true)
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: ca.privateKeyPath)
            #expect(try LocalCA.loadOrCreate(directory: folder.path).fingerprintSHA256 == ca.fingerprintSHA256)
        }
    }

    @Test func aCorruptCertificateOrKeyIsNamedWithWhatFixesIt() throws {
        try withTemporaryFolder("ca") { folder in
            let ca = try LocalCA.loadOrCreate(directory: folder.path)
            let goodCertificate = ca.rootPEM
            let goodKey = try String(contentsOfFile: ca.privateKeyPath, encoding: .utf8)

            try "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n".write(toFile: ca.certificatePath, atomically: false, encoding: .utf8)
            var error = #expect(throws: LocalCA.Error.self) { try LocalCA.loadOrCreate(directory: folder.path) }
            #expect(error?.kind == .corrupt)
            #expect(error?.path == ca.certificatePath)
            #expect(error?.description.contains(ca.certificatePath) == true)
            #expect(error?.description.contains("hlschaos ca rotate") == true)

            try goodCertificate.write(toFile: ca.certificatePath, atomically: false, encoding: .utf8)
            try "garbage".write(toFile: ca.privateKeyPath, atomically: false, encoding: .utf8)
            error = #expect(throws: LocalCA.Error.self) { try LocalCA.loadOrCreate(directory: folder.path) }
            #expect(error?.kind == .corrupt)
            #expect(error?.description.contains(ca.privateKeyPath) == true)
            #expect(error?.description.contains("hlschaos ca rotate") == true)

            try goodKey.write(toFile: ca.privateKeyPath, atomically: false, encoding: .utf8)
            #expect(try LocalCA.loadOrCreate(directory: folder.path).fingerprintSHA256 == ca.fingerprintSHA256)
        }
    }

    @Test func aKeyFromAnotherCAIsRefused() throws {
        try withTemporaryFolder("ca") { folder in
            let ca = try LocalCA.loadOrCreate(directory: folder.path + "/one")
            let other = try LocalCA.loadOrCreate(directory: folder.path + "/two")
            try FileManager.default.removeItem(atPath: ca.privateKeyPath)
            try FileManager.default.copyItem(atPath: other.privateKeyPath, toPath: ca.privateKeyPath)
            let error = #expect(throws: LocalCA.Error.self) { try LocalCA.loadOrCreate(directory: ca.directory) }
            #expect(error?.kind == .keyMismatch)
            #expect(error?.description.contains("\(ca.privateKeyPath) is not the private key of \(ca.certificatePath)") == true)
        }
    }

    @Test func oneFileWithoutTheOtherIsNamedNotReplaced() throws {
        try withTemporaryFolder("ca") { folder in
            let ca = try LocalCA.loadOrCreate(directory: folder.path)
            try FileManager.default.removeItem(atPath: ca.privateKeyPath)
            let error = #expect(throws: LocalCA.Error.self) { try LocalCA.loadOrCreate(directory: folder.path) }
            #expect(error?.kind == .fileMissing)
            #expect(error?.description.contains("\(ca.privateKeyPath) is missing") == true)
            // The certificate that devices may trust is left alone.
            #expect(try String(contentsOfFile: ca.certificatePath, encoding: .utf8) == ca.rootPEM)
        }
    }

    @Test func aFolderThatCannotBeMadeSaysWhereAndWhatToDo() throws {
        try withTemporaryFolder("ca") { folder in
            let blocker = try folder.file("not-a-folder", "x")
            let error = #expect(throws: LocalCA.Error.self) { try LocalCA.loadOrCreate(directory: blocker + "/ca") }
            #expect(error?.kind == .directoryNotWritable)
            #expect(error?.description.contains(blocker) == true)
            #expect(error?.description.contains("--data-dir") == true)

            let onAFile = #expect(throws: LocalCA.Error.self) { try LocalCA.loadOrCreate(directory: blocker) }
            #expect(onAFile?.description.contains("\(blocker) is a file, not a folder") == true)
        }
    }

    @Test func rotateMakesANewRootAndKeepsThePreviousFilesAsOld() throws {
        try withTemporaryFolder("ca") { folder in
            let first = try LocalCA.loadOrCreate(directory: folder.path)
            let firstKey = try String(contentsOfFile: first.privateKeyPath, encoding: .utf8)
            let second = try LocalCA.rotate(directory: folder.path)
            #expect(second.isNew)
            #expect(second.fingerprintSHA256 != first.fingerprintSHA256)
            #expect(try String(contentsOfFile: first.certificatePath + ".old", encoding: .utf8) == first.rootPEM)
            #expect(try String(contentsOfFile: first.privateKeyPath + ".old", encoding: .utf8) == firstKey)
            #expect(try permissions(first.privateKeyPath + ".old") == 0o600)
            #expect(try permissions(second.privateKeyPath) == 0o600)
            #expect(try LocalCA.loadOrCreate(directory: folder.path).fingerprintSHA256 == second.fingerprintSHA256)
        }
    }

    @Test func processesStartingTogetherShareOneCA() async throws {
        try await withTemporaryFolder("ca") { folder in
            let path = folder.path
            let fingerprints = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 {
                    group.addTask { try LocalCA.loadOrCreate(directory: path).fingerprintSHA256 }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(fingerprints.count == 1)
        }
    }

    @Test func theDefaultFolderFollowsXDGDataHome() {
        let data = ProcessInfo.processInfo.environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        let expected = (data ?? home + "/.local/share") + "/hlschaos/ca"
        #expect(LocalCA.defaultDirectory == expected)
        #expect(LocalCA.directory(inDataDirectory: "/srv/chaos/") == "/srv/chaos/ca")
    }
}
