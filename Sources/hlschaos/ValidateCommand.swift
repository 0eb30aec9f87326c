import ArgumentParser

struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "validate", abstract: "Not implemented yet.")

    func run() async throws {
        throw ValidationError("`hlschaos validate` is not implemented yet")
    }
}
