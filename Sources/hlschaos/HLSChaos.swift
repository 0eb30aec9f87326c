import ArgumentParser

@main
struct HLSChaos: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hlschaos",
        abstract: "HLS fault-injection reverse proxy.",
        subcommands: [
            DemoCommand.self, ServeCommand.self, RecordCommand.self, ReplayCommand.self, ImportHARCommand.self, RunCommand.self,
            MatrixCommand.self, InspectCommand.self, ValidateCommand.self, CACommand.self,
        ]
    )
}
