/// Columns of text aligned with two spaces between them, the last column unpadded: how `inspect`
/// prints playlists and bundles.
public enum TextTable {
    public static func lines(_ header: [String], _ rows: [[String]]) -> [String] {
        let all = [header] + rows
        var widths = [Int](repeating: 0, count: header.count)
        for row in all {
            for (column, cell) in row.enumerated() where column < widths.count { widths[column] = max(widths[column], cell.count) }
        }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 || column >= widths.count ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
    }
}
