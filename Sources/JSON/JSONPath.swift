/// Where a value is in a document, as messages name it: `$.rules[2].match.kind`, and
/// `$["a key"]` for a key that is not a plain name.
public enum JSONPath {
    /// The path of member `key` of the object at `path`.
    public static func child(_ path: String, _ key: String) -> String {
        let plain = key.first.map { $0.isLetter || $0 == "_" } == true
            && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        if plain { return "\(path).\(key)" }
        var escaped = ""
        for character in key {
            if character == "\\" || character == "\"" { escaped.append("\\") }
            escaped.append(character)
        }
        return "\(path)[\"\(escaped)\"]"
    }
}
