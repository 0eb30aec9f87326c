import PlayerReports

/// The names of custom players (`--player` commands with `{url}`), so that verdicts, JUnit and the
/// matrix tell them apart: `NAME=COMMAND` names one explicitly; otherwise it is named after its
/// program (`streamlink --stdout {url} best` → `streamlink`). Names are letters, digits, '.', '_'
/// and '-' (what a session name and a file name take); a built-in player's name and `command` (what
/// expectations call every custom player) are not custom names.
enum CustomPlayerNames {
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// `NAME=COMMAND` → (NAME, COMMAND): the spec starts with a valid name and '='. Anything else
    /// is a command without a name (`./a=b {url}`, `'x=y' {url}`). No shell runs the command, so a
    /// `VAR=value` prefix never set the environment: read as a name, it loses nothing.
    static func split(_ spec: String) -> (name: String?, command: String) {
        guard let equals = spec.firstIndex(of: "=") else { return (nil, spec) }
        let name = String(spec[..<equals])
        guard isValid(name) else { return (nil, spec) }
        return (name, String(spec[spec.index(after: equals)...]))
    }

    static func isValid(_ name: String) -> Bool {
        guard let first = name.first, first.isASCII, first.isLetter || first.isNumber else { return false }
        return name.allSatisfy(allowed.contains)
    }

    /// The program's file name, with characters a name cannot hold replaced by '-' and what comes
    /// before its first letter or digit dropped; "custom" when nothing is left.
    static func derived(fromProgram program: String) -> String {
        let base = program.split(separator: "/").last.map(String.init) ?? ""
        let clean = base.map { allowed.contains($0) ? $0 : "-" }.drop { !($0.isLetter || $0.isNumber) }
        return clean.isEmpty ? "custom" : String(clean)
    }

    /// Names not to be given to a custom player.
    static let reserved = Set(PlayerNames.drivers + [PlayerNames.custom])

    /// An explicit name: valid, not reserved, not given twice (`taken` holds the names given so far).
    static func checkExplicit(_ name: String, taken: Set<String>) throws {
        if reserved.contains(name) {
            let what = name == PlayerNames.custom
                ? "\"\(name)\" is what expectations call every custom player"
                : "\"\(name)\" is the built-in player's name"
            throw Problem(description: "\(what); give your command another name, e.g. my-\(name)=…")
        }
        if taken.contains(name) {
            throw Problem(description: "two players are named \"\(name)\"; give each custom player its own name (NAME=COMMAND)")
        }
    }

    /// `base`, or `base-2`, `base-3`, … : the first that is neither reserved nor taken.
    static func unique(_ base: String, taken: Set<String>) -> String {
        var name = base
        var number = 2
        while reserved.contains(name) || taken.contains(name) {
            name = "\(base)-\(number)"
            number += 1
        }
        return name
    }

    private static let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
}
