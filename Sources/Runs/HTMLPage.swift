import Markup

/// A self-contained HTML page (inline CSS, no script, nothing fetched): the `--html` report of a
/// run and the matrix page.
enum HTMLPage {
    static func page(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(Markup.escape(title))</title>
        <style>
        :root { color-scheme: light dark; --pass: #1a7f37; --fail: #cf222e; --warn: #9a6700; --muted: #6e7781; --line: #d0d7de; }
        body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1400px; padding: 0 1rem; }
        h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
        table { border-collapse: collapse; width: 100%; } th, td { border: 1px solid var(--line); padding: .35rem .5rem; vertical-align: top; text-align: left; }
        th { background: color-mix(in srgb, var(--line) 35%, transparent); position: sticky; top: 0; }
        .pass { color: var(--pass); font-weight: 600; } .fail { color: var(--fail); font-weight: 600; } .error { color: var(--warn); font-weight: 600; }
        .muted { color: var(--muted); } code, pre { font: 12px/1.4 ui-monospace, Menlo, Consolas, monospace; }
        pre { white-space: pre-wrap; margin: .3rem 0; } td.cell-departs { background: color-mix(in srgb, var(--fail) 10%, transparent); }
        td.cell-conforms { background: color-mix(in srgb, var(--pass) 8%, transparent); }
        details summary { cursor: pointer; } ul { margin: .2rem 0; padding-left: 1.2rem; }
        </style></head><body>
        \(body)
        </body></html>

        """
    }
}
