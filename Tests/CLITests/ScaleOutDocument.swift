import Foundation

/// The nginx configuration docs/scale-out.md gives, read out of the document so that the test runs
/// what readers copy.
enum ScaleOutDocument {
    static let path = CLI.repository.appendingPathComponent("docs/scale-out.md").path

    /// The addresses the document's example uses, which a test replaces with its own.
    static let exampleListen = "listen 8080;"
    static let exampleServers = ["server 10.0.0.11:8080", "server 10.0.0.12:8080"]

    struct Mismatch: Error, CustomStringConvertible {
        var description: String
    }

    /// The document's nginx block (the one that hashes on `$hlschaos_session`), listening on
    /// `127.0.0.1:<listen>` with the instances on loopback `servers` in place of the example's.
    static func nginxConfiguration(listen: Int, servers: [Int]) throws -> String {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let blocks = text.components(separatedBy: "```nginx\n").dropFirst().compactMap { $0.components(separatedBy: "\n```").first }
        let tested = blocks.filter { $0.contains("hash $hlschaos_session consistent;") }
        guard tested.count == 1, var block = tested.first else {
            throw Mismatch(description: "\(path): expected one nginx block with `hash $hlschaos_session consistent;`, found \(tested.count)")
        }
        guard servers.count == exampleServers.count else {
            throw Mismatch(description: "the document's example has \(exampleServers.count) instances, the test \(servers.count)")
        }
        let replacements = [(exampleListen, "listen 127.0.0.1:\(listen);")]
            + zip(exampleServers, servers).map { ($0, "server 127.0.0.1:\($1)") }
        for (example, local) in replacements {
            guard block.components(separatedBy: example).count == 2 else {
                throw Mismatch(description: "\(path): the nginx block should contain \"\(example)\" once; the test replaces it")
            }
            block = block.replacingOccurrences(of: example, with: local)
        }
        return block
    }
}
