/// "Did you mean" support: the nearest valid key by edit distance.
public enum Suggestions {
    /// Optimal string alignment distance (insert, delete, substitute, swap two neighbours),
    /// case-insensitive so that "MSN" suggests "msn".
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    best = min(best, table[i - 2][j - 2] + 1)
                }
                table[i][j] = best
            }
        }
        return table[a.count][b.count]
    }

    /// The closest candidate within a distance that still looks like a typo, or nil.
    public static func nearest(to key: String, in candidates: [String]) -> String? {
        let limit = max(1, min(3, key.count / 2))
        // "lang" → "language": a key that starts a valid one is a likely abbreviation.
        if key.count >= 3, let prefixed = candidates.first(where: { $0.lowercased().hasPrefix(key.lowercased()) }) {
            return prefixed
        }
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(key, candidate)
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.candidate
    }
}
