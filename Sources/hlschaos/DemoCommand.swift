import ArgumentParser

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo", abstract: "Not implemented yet.")

    func run() async throws {
        throw ValidationError("`hlschaos demo` is not implemented yet")
    }
}
