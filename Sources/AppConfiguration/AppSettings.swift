import Proxy
import RuleLoading

/// The configuration file read (`ConfigFile`), one part per owner: the command line hands each part
/// to the module it configures, and flags override them there.
public struct AppSettings: Sendable {
    /// The data plane (`ProxyServer`): listeners, origins, timeouts, limits, forward mode, recording.
    public var proxy = ProxyConfiguration()
    /// The rule files and presets (`RuleBook`): "rules", "presets", "maxPresetsPerURL", "engineCacheSize".
    public var rules = RuleBook.Settings()
    /// The control API (`ControlServer`): "control", "controlToken".
    public var control = ControlSettings()
    /// Every logger's level ("logLevel"): trace, debug, info, notice, warning, error or critical.
    public var logLevel = "info"
    /// Where the local certificate authority and other state live ("dataDir", `--data-dir`); nil:
    /// the default under the user's data home.
    public var dataDirectory: String?

    public init() {}

    /// The control API as the file gives it; the command line puts its flags and the environment
    /// (`HLSCHAOS_CONTROL_TOKEN`) over it.
    public struct ControlSettings: Sendable, Equatable {
        /// "control": nil when the key is absent (the default address), `.some(nil)` when it is
        /// null (no control API), else `HOST:PORT`.
        public var listen: String??
        /// "controlToken": the bearer token every call must carry.
        public var token: String?
        public init() {}
    }
}
