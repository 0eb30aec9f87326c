import ArgumentParser
import Control
import Foundation

/// `--control HOST:PORT|off` and `--control-token TOKEN`: where the control API listens and the
/// bearer token every call must carry. Flags override the environment (`HLSCHAOS_CONTROL_TOKEN`),
/// which overrides the config file (`control`, `controlToken`).
struct ControlOptions: ParsableArguments {
    static let tokenVariable = "HLSCHAOS_CONTROL_TOKEN"

    @Option(
        name: .customLong("control"),
        help: ArgumentHelp(
            "Where the control API listens (default \(ControlConfiguration.defaultListen)), or off. Beyond loopback it needs a token.",
            valueName: "HOST:PORT|off"))
    var control: String?

    @Option(
        name: .customLong("control-token"),
        help: ArgumentHelp(
            "Every control API call must send Authorization: Bearer TOKEN. The environment variable \(tokenVariable) does the same without showing the token in ps.",
            valueName: "TOKEN"))
    var controlToken: String?

    /// The control API to start, or nil for none.
    struct Setting {
        var configuration: ControlConfiguration?
        /// Asked for with `--control` or the config file: failing to listen stops start-up. The
        /// default address only gets a warning (another hlschaos may hold it).
        var explicit: Bool
    }

    /// - Parameters:
    ///   - fileListen: the config file's `control`: nil when the key is absent, `.some(nil)` for null (off).
    ///   - fileToken: the config file's `controlToken`.
    func setting(
        fileListen: String?? = nil, fileToken: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> Setting {
        let listen: String?
        let explicit: Bool
        if let control {
            listen = control.lowercased() == "off" ? nil : control
            explicit = true
        } else if let fileListen {
            listen = fileListen
            explicit = true
        } else {
            listen = ControlConfiguration.defaultListen
            explicit = false
        }
        guard let listen else { return Setting(configuration: nil, explicit: explicit) }
        let address: (host: String, port: Int)
        switch ControlConfiguration.parseListen(listen) {
        case .success(let parsed): address = parsed
        case .failure(let error): throw CLIError("--control \(error)")
        }
        var configuration = ControlConfiguration(host: address.host, port: address.port)
        let environmentToken = environment[Self.tokenVariable].flatMap { $0.isEmpty ? nil : $0 }
        configuration.token = controlToken ?? environmentToken ?? fileToken
        if let refusal = configuration.refusal { throw CLIError("not starting: \(refusal)") }
        return Setting(configuration: configuration, explicit: explicit)
    }
}
