import Foundation

// EmbedGen OUTPUT NAME PATH [NAME PATH]…: writes a Swift source declaring, inside the module that
// compiles it, `EmbeddedFiles.files`: each NAME (a path relative to the target's folder, such as
// `rules/status-503.json` or `Dashboard/index.html`) with the exact bytes of the file at PATH, in
// the order given. Run by the EmbedFiles build plugin.

let arguments = Array(CommandLine.arguments.dropFirst())
guard let output = arguments.first, arguments.count % 2 == 1 else {
    FileHandle.standardError.write(Data("usage: EmbedGen OUTPUT NAME PATH [NAME PATH]…\n".utf8))
    exit(2)
}

/// A Swift string literal of `text`; characters beyond ASCII stay as they are.
func stringLiteral(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": out += "\\\\"
        case "\"": out += "\\\""
        case "\n": out += "\\n"
        case _ where scalar.value < 0x20 || scalar.value == 0x7f:
            out += "\\u{" + String(scalar.value, radix: 16) + "}"
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

/// An expression for exactly `bytes`: a string literal's UTF-8 (cheap to compile), or an array
/// literal when they are not UTF-8.
func bytesLiteral(_ bytes: [UInt8]) -> String {
    let text = String(decoding: bytes, as: UTF8.self)
    guard Array(text.utf8) == bytes else {
        return "[" + bytes.map { "0x" + String($0, radix: 16) }.joined(separator: ", ") + "]"
    }
    return "Array(\(stringLiteral(text)).utf8)"
}

var source = """
    // Generated at build time by EmbedGen (the EmbedFiles plugin) from the target's files. Do not edit.

    /// The files of this target's folder that are not Swift sources, compiled in so that a copied
    /// binary has them: (path relative to the target's folder, exact bytes).
    enum EmbeddedFiles {
        static let files: [(path: String, bytes: [UInt8])] = [

    """
var pairs = arguments.dropFirst()
while let name = pairs.popFirst(), let path = pairs.popFirst() {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("EmbedGen: cannot read \(path)\n".utf8))
        exit(1)
    }
    source += "        (path: \(stringLiteral(name)), bytes: \(bytesLiteral([UInt8](data)))),\n"
}
source += "    ]\n}\n"
do {
    try source.write(toFile: output, atomically: true, encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("EmbedGen: cannot write \(output): \(error)\n".utf8))
    exit(1)
}
