import Foundation

/// The programs the browser drivers need besides the engine: Chromium, chromedriver, and a
/// Python 3 that imports selenium.
public struct BrowserTools: Sendable, Equatable {
    public var chromium: String
    public var chromedriver: String
    public var python: String
    /// "156.0.8078.79", from `chromium --version`.
    public var chromiumVersion: String?

    /// The command that installs what is missing (Debian/Ubuntu).
    public static let install = "apt-get install -y chromium chromium-driver && python3 -m pip install selenium"

    public enum Problem: Error, Equatable, Sendable {
        case missing(reason: String, install: String)
    }

    /// Finds the programs and checks that selenium imports. Runs `chromium --version` and
    /// `python3 -c "import selenium"` (a second or so).
    public static func find() async -> Result<BrowserTools, Problem> {
        guard let chromium = ["chromium", "chromium-browser", "google-chrome"].lazy.compactMap(ProcessRunner.which).first else {
            return .failure(.missing(reason: "Chromium not found in PATH (chromium, chromium-browser, google-chrome)", install: install))
        }
        guard let chromedriver = ProcessRunner.which("chromedriver") else {
            return .failure(.missing(reason: "chromedriver not found in PATH", install: install))
        }
        guard let python = ProcessRunner.which("python3") else {
            return .failure(.missing(reason: "python3 not found in PATH", install: "apt-get install -y python3 python3-pip && python3 -m pip install selenium"))
        }
        let probe = try? await ProcessRunner.run(.init(python, ["-c", "import selenium; print(selenium.__version__)"], timeout: 30))
        guard let probe, probe.status == 0 else {
            let detail = probe?.stderr.split(separator: "\n").last.map { ": \($0)" } ?? ""
            return .failure(.missing(reason: "python3 cannot import selenium\(detail)", install: "python3 -m pip install selenium"))
        }
        let version = try? await ProcessRunner.run(.init(chromium, ["--version"], timeout: 30))
        return .success(BrowserTools(
            chromium: chromium, chromedriver: chromedriver, python: python,
            chromiumVersion: version.flatMap { parseVersion($0.stdout) }))
    }

    /// "Chromium 156.0.8078.79 built on Debian …" → "156.0.8078.79": the first word that starts
    /// with a digit.
    static func parseVersion(_ text: String) -> String? {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.first?.isNumber == true }.map(String.init)
    }
}
