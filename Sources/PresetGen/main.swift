import Foundation

// PresetGen OUTPUT FILE.json…: writes a Swift source declaring `BuiltInPresets.files`, the name
// (file name without .json) and exact bytes of every FILE, in the order given.

let arguments = Array(CommandLine.arguments.dropFirst())
guard let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: PresetGen OUTPUT FILE.json…\n".utf8))
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
    // Generated at build time by PresetGen (Plugins/EmbedPresets) from rules/*.json. Do not edit.

    extension BuiltInPresets {
        public static let files: [(name: String, bytes: [UInt8])] = [

    """
for path in arguments.dropFirst() {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("PresetGen: cannot read \(path)\n".utf8))
        exit(1)
    }
    var name = URL(fileURLWithPath: path).lastPathComponent
    if name.hasSuffix(".json") { name.removeLast(5) }
    source += "        (name: \(stringLiteral(name)), bytes: \(bytesLiteral([UInt8](data)))),\n"
}
source += "    ]\n}\n"
do {
    try source.write(toFile: output, atomically: true, encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("PresetGen: cannot write \(output): \(error)\n".utf8))
    exit(1)
}
