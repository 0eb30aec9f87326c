import Foundation
import TestSupport

/// A command-line tool (openssl, curl, python3) run to completion: the independent judge of
/// what the CA wrote. Its output goes to files, not pipes: a pipe ends only when every process
/// holding it has closed it, and children that tests in the same process start at the same
/// moment inherit each other's pipes.
struct ToolRun {
    var status: Int32
    var stdout: String
    var stderr: String

    static func run(_ tool: String, _ arguments: [String], input: String? = nil) async throws -> ToolRun {
        try await withTemporaryFolder("tool") { folder in try await run(tool, arguments, input: input, in: folder) }
    }

    private static func run(_ tool: String, _ arguments: [String], input: String?, in folder: TemporaryFolder) async throws -> ToolRun {
        let outPath = try folder.file("stdout", "")
        let errPath = try folder.file("stderr", "")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        let stdin = try input.map { try FileHandle(forReadingFrom: URL(fileURLWithPath: try folder.file("stdin", $0))) }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin ?? FileHandle.nullDevice
        try process.run()
        for handle in [out, err] + (stdin.map { [$0] } ?? []) { try handle.close() }
        _ = await eventually(timeout: .seconds(60)) { !process.isRunning }
        process.waitUntilExit()
        return ToolRun(
            status: process.terminationStatus,
            stdout: try String(contentsOfFile: outPath, encoding: .utf8),
            stderr: try String(contentsOfFile: errPath, encoding: .utf8))
    }
}

func permissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}
