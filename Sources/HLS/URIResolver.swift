import Foundation

/// Resolves URI references against a base URI as RFC 3986 §5.2 describes.
/// Works on strings; the base is split once so that resolving many segment URIs is cheap.
struct URIResolver: Sendable {
    private let base: Components?
    /// `scheme://authority/dir/` of the base: the prefix for plain relative paths.
    private let baseDirectory: String?
    /// The same, as bytes, for the streaming rewrite.
    private let baseDirectoryBytes: [UInt8]

    init(base: URL?) {
        guard let base, let components = Components(base.absoluteString), components.scheme != nil else {
            self.base = nil
            self.baseDirectory = nil
            self.baseDirectoryBytes = []
            return
        }
        self.base = components
        var directory = components.scheme! + ":"
        if let authority = components.authority { directory += "//" + authority }
        if components.authority != nil && components.path.isEmpty {
            directory += "/"
        } else if let slash = components.path.lastIndex(of: "/") {
            directory += components.path[...slash]
        }
        self.baseDirectory = directory
        self.baseDirectoryBytes = Array(directory.utf8)
    }

    /// `scheme://authority/dir/` of the base, which a plain relative path (`isPlainRelativePath`)
    /// resolves under by being appended to it; nil without a base.
    var directory: [UInt8]? { baseDirectory == nil ? nil : baseDirectoryBytes }

    /// Appends the absolute form of `reference` to `output`, as `resolve` would write it; false (and
    /// nothing appended) when it is relative and there is no base. The two common forms, a plain
    /// relative path and an absolute URI without dot segments, cost a copy and no `String`.
    func resolve(_ reference: UnsafeBufferPointer<UInt8>, appendingTo output: inout [UInt8]) -> Bool {
        if baseDirectory != nil, Self.isPlainRelativePath(reference) {
            output.append(contentsOf: baseDirectoryBytes)
            output.append(contentsOf: reference)
            return true
        }
        if Self.isAbsoluteWithoutDotSegments(reference) {
            output.append(contentsOf: reference)
            return true
        }
        guard let resolved = resolve(String(decoding: reference, as: UTF8.self)) else { return false }
        output.append(contentsOf: resolved.utf8)
        return true
    }

    /// The absolute form of `reference`, or nil when it is relative and there is no base.
    func resolve(_ reference: String) -> String? {
        if let baseDirectory, Self.isPlainRelativePath(reference) {
            return Self.concatenate(baseDirectory, reference)
        }
        guard let ref = Components(reference) else { return nil }
        if ref.scheme != nil {
            var target = ref
            target.path = Self.removeDotSegments(ref.path)
            return target.recomposed
        }
        guard let base else { return nil }
        var target = Components(scheme: base.scheme, authority: nil, path: "", query: nil, fragment: ref.fragment)
        if ref.authority != nil {
            target.authority = ref.authority
            target.path = Self.removeDotSegments(ref.path)
            target.query = ref.query
        } else {
            target.authority = base.authority
            if ref.path.isEmpty {
                target.path = base.path
                target.query = ref.query ?? base.query
            } else {
                if ref.path.hasPrefix("/") {
                    target.path = Self.removeDotSegments(ref.path)
                } else {
                    target.path = Self.removeDotSegments(Self.merge(base: base, path: ref.path))
                }
                target.query = ref.query
            }
        }
        return target.recomposed
    }

    /// `a + b` with one allocation and two copies (String's `+` costs several times more).
    private static func concatenate(_ a: String, _ b: String) -> String {
        var a = a
        var b = b
        return a.withUTF8 { first in
            b.withUTF8 { second in
                String(unsafeUninitializedCapacity: first.count + second.count) { buffer in
                    guard let target = buffer.baseAddress else { return 0 }
                    if let source = first.baseAddress { target.initialize(from: source, count: first.count) }
                    if let source = second.baseAddress { (target + first.count).initialize(from: source, count: second.count) }
                    return first.count + second.count
                }
            }
        }
    }

    /// A relative path with no scheme, authority, dot segments or leading `/`, `?`, `#`:
    /// the common `segment12.ts` case, resolved by prefixing the base directory.
    private static func isPlainRelativePath(_ reference: String) -> Bool {
        if let answer = reference.utf8.withContiguousStorageIfAvailable(isPlainRelativePath) { return answer }
        return Array(reference.utf8).withUnsafeBufferPointer { isPlainRelativePath($0) }
    }

    static func isPlainRelativePath(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, let first = bytes.first, first != 0x2F, first != 0x3F, first != 0x23 else { return false }
        // The path part ends at a query or a fragment.
        var end = bytes.count
        if let question = memchr(base, 0x3F, end) { end = base.distance(to: question.assumingMemoryBound(to: UInt8.self)) }
        if let hash = memchr(base, 0x23, end) { end = base.distance(to: hash.assumingMemoryBound(to: UInt8.self)) }
        // Reductions without early exit (the compiler vectorises them): controls and space, ':', DEL,
        // and a segment starting with '.'.
        var lowest: UInt8 = 0xFF
        var bad: UInt8 = 0
        var previous: UInt8 = 0x2F  // as if preceded by '/'
        for index in 0..<end {
            let byte = base[index]
            lowest = min(lowest, byte)
            bad |= (byte == 0x3A ? 1 : 0) | (byte == 0x7F ? 1 : 0) | (byte == 0x2E && previous == 0x2F ? 1 : 0)
            previous = byte
        }
        return lowest > 0x20 && bad == 0
    }

    /// A reference with a scheme (`https://cdn/a/b.ts`) that resolves to itself: no spaces or
    /// controls, no path starting with `.` after the scheme and no `/.` anywhere (a dot segment may
    /// follow; checked loosely, which only sends a few URIs the long way).
    private static func isAbsoluteWithoutDotSegments(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, (first | 0x20) >= 0x61 && (first | 0x20) <= 0x7A else { return false }
        var colon = -1
        for (index, byte) in bytes.enumerated() {
            if byte == 0x3A { colon = index; break }
            let letter = (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A
            guard letter || (byte >= 0x30 && byte <= 0x39) || byte == 0x2B || byte == 0x2D || byte == 0x2E else { return false }
        }
        guard colon > 0, colon + 1 < bytes.count, bytes[colon + 1] != 0x2E else { return false }
        var previous: UInt8 = 0
        for byte in bytes[(colon + 1)...] {
            if byte <= 0x20 || byte == 0x7F || (byte == 0x2E && previous == 0x2F) { return false }
            previous = byte
        }
        return true
    }

    private static func merge(base: Components, path: String) -> String {
        if base.authority != nil && base.path.isEmpty { return "/" + path }
        if let slash = base.path.lastIndex(of: "/") { return base.path[...slash] + path }
        return path
    }

    /// RFC 3986 §5.2.4.
    static func removeDotSegments(_ path: String) -> String {
        if !path.contains(".") { return path }
        var input = Substring(path)
        var output: [Substring] = []
        while !input.isEmpty {
            if input.hasPrefix("../") {
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") {
                input = input.dropFirst(2)
            } else if input.hasPrefix("/./") {
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") {
                input = input.dropFirst(3)
                if !output.isEmpty { output.removeLast() }
            } else if input == "/.." {
                input = "/"
                if !output.isEmpty { output.removeLast() }
            } else if input == "." || input == ".." {
                input = ""
            } else {
                let searchStart = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[searchStart...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[input.startIndex..<end])
                input = input[end...]
            }
        }
        return output.joined()
    }

    struct Components: Sendable {
        var scheme: String?
        var authority: String?
        var path: String
        var query: String?
        var fragment: String?

        init(scheme: String?, authority: String?, path: String, query: String?, fragment: String?) {
            self.scheme = scheme
            self.authority = authority
            self.path = path
            self.query = query
            self.fragment = fragment
        }

        /// Splits a URI reference (RFC 3986 appendix B). Nil for text with spaces or controls.
        init?(_ text: String) {
            var rest = Substring(text)
            if rest.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) { return nil }
            if let hash = rest.firstIndex(of: "#") {
                fragment = String(rest[rest.index(after: hash)...])
                rest = rest[..<hash]
            }
            if let question = rest.firstIndex(of: "?") {
                query = String(rest[rest.index(after: question)...])
                rest = rest[..<question]
            }
            if let colon = rest.firstIndex(of: ":") {
                let candidate = rest[..<colon]
                if let first = candidate.utf8.first, Self.isAlpha(first),
                   candidate.utf8.allSatisfy({ Self.isAlpha($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }),
                   !candidate.contains("/") {
                    scheme = String(candidate)
                    rest = rest[rest.index(after: colon)...]
                }
            }
            if rest.hasPrefix("//") {
                rest = rest.dropFirst(2)
                let slash = rest.firstIndex(of: "/") ?? rest.endIndex
                authority = String(rest[..<slash])
                rest = rest[slash...]
            }
            path = String(rest)
        }

        private static func isAlpha(_ byte: UInt8) -> Bool {
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        }

        var recomposed: String {
            var result = ""
            if let scheme { result += scheme + ":" }
            if let authority { result += "//" + authority }
            result += path
            if let query { result += "?" + query }
            if let fragment { result += "#" + fragment }
            return result
        }
    }
}
