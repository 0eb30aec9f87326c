import Chaos
import Foundation
import JSON
import Link
import RuleLoading

/// Every session's link as `serve --link` or the configuration's `"link"` gives it: a profile name
/// (`slow-3g`), a link spec (docs/link.md), or — on the command line — a JSON file holding one. A
/// trace the spec names is read relative to `folder`, else from the traces shipped with hlschaos.
public enum LinkSetting {
    public static func read(_ value: JSONValue, folder: String, path: String = "$") throws(LinkSpecError) -> LinkSpec {
        let spec: JSONValue = if case .string(let profile) = value { .object([JSONMember(key: "profile", value: .string(profile))]) } else { value }
        return try LinkSpecReader.read(spec, path: path) { name in
            FileManager.default.contents(atPath: URL(fileURLWithPath: folder).appendingPathComponent(name).path).map { [UInt8]($0) }
                ?? RuleBook.builtInTrace(name)
        }
    }

    /// `--link`'s argument: a profile name, a JSON object, or the path of a JSON file.
    public static func argument(_ text: String) throws(LinkSpecError) -> LinkSpec {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("{") {
            do {
                return try read(try JSONValue.parse(Array(trimmed.utf8)), folder: FileManager.default.currentDirectoryPath)
            } catch let error as LinkSpecError {
                throw error
            } catch {
                throw LinkSpecError("$", "\(error)")
            }
        }
        if trimmed.hasSuffix(".json") {
            guard let data = FileManager.default.contents(atPath: trimmed) else { throw LinkSpecError("$", "cannot read the file \(trimmed)") }
            let folder = URL(fileURLWithPath: trimmed).deletingLastPathComponent().path
            do {
                return try read(try JSONValue.parse([UInt8](data)), folder: folder)
            } catch let error as LinkSpecError {
                throw error
            } catch {
                throw LinkSpecError("$", "\(trimmed): \(error)")
            }
        }
        return try read(.string(trimmed), folder: FileManager.default.currentDirectoryPath)
    }
}
