import ArgumentParser

struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "inspect", abstract: "Not implemented yet.")

    func run() async throws {
        throw ValidationError("`hlschaos inspect` is not implemented yet")
    }
}
