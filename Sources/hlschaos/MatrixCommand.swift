import ArgumentParser
import Chaos
import Control
import Foundation
import Players
import Proxy
import Records
import Runs

struct MatrixCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "matrix",
        abstract: "Run every preset against every installed player and write the conformance matrix.",
        discussion: """
            Rows are the presets (documented error paths, with their reference), columns the players; each cell is the observed reaction in a few words, marked where it departs from the documented expectation, with a link to the evidence.

            Writes DIR/player-matrix.md (with one evidence page per preset in DIR/player-matrix/), DIR/player-matrix.html, DIR/matrix.json and the raw evidence of every run in DIR/evidence/ (not meant for committing). Live presets play the demo's live stream for the time the preset names.
            """)

    @Option(name: .customLong("players"), parsing: .upToNextOption, help: "Players to include (default: every installed one): names as for run --player, or commands with {url} (NAME=COMMAND names one).")
    var players: [String] = []

    @Option(parsing: .upToNextOption, help: "Presets to include (default: all).")
    var presets: [String] = []

    @Option(help: "Output folder (default: a new folder in the temp directory).")
    var out: String?

    @Option(help: "Longest a VOD run may take (live runs take what the preset names).")
    var timeout: String = "90s"

    @Option(help: "How many players run at once (default: the number of cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Describes the machine in the page header (default: cores, CPU model, kernel, and the load average the players ran under).")
    var machine: String?

    @Option(help: ArgumentHelp(
        "Run only the I-th of N disjoint slices of the presets (every player of a preset in the same slice; slices balanced by play time), so that N machines share the matrix; merge their matrix.json files with --from-json.",
        valueName: "I/N"))
    var shard: String?

    @Option(parsing: .upToNextOption, help: ArgumentHelp(
        "Write the pages again from the matrix.json of earlier runs (no player runs). Several files make one matrix: rows sorted by preset, a preset in a later file replacing an earlier file's row.",
        valueName: "FILE"))
    var fromJSON: [String] = []

    func run() async throws {
        try await ScenarioArguments.exit("matrix") { try await execute() }
    }

    private func execute() async throws -> Int32 {
        if !fromJSON.isEmpty {
            if shard != nil { throw CLIError("--shard runs players; --from-json only writes pages: give one or the other") }
            return try rerender(fromJSON)
        }
        try ScenarioArguments.checkJobs(jobs)
        let seconds = try ScenarioArguments.seconds(timeout, option: "--timeout")
        let (book, logger) = try ScenarioArguments.presetBook(directory: nil)
        var scenarios = try ScenarioArguments.resolve(presets.isEmpty ? book.presetNames : presets, rules: book)
        if let shard {
            switch MatrixShard.parse(shard) {
            case .failure(let error): throw CLIError(error.description)
            case .success(let slice):
                scenarios = slice.select(scenarios, vodSeconds: min(seconds, 60))
                say("matrix: shard \(slice): \(scenarios.count) presets (\(scenarios.map(\.name).joined(separator: ", ")))")
                guard !scenarios.isEmpty else { say("matrix: this shard has no preset"); return 0 }
            }
        }

        var drivers: [any PlayerDriver] = []
        if players.isEmpty {
            for driver in PlayerCatalog.all {
                switch await driver.availability() {
                case .ready: drivers.append(driver)
                case .missing(let reason, let install):
                    say("matrix: leaving out \(driver.name): \(reason) (install: \(install))")
                }
            }
        } else {
            drivers = try ScenarioArguments.drivers(players, option: "--players")
        }
        guard !drivers.isEmpty else { throw CLIError("no player is installed; see hlschaos run --help for the players") }

        let source = StreamSource.demo(stream: "vod", flavour: "ts")
        var plans: [CellPlan] = []
        var rows: [PlayerMatrix.Row] = []
        for scenario in scenarios {
            for driver in drivers {
                do {
                    plans.append(try StreamChoice.plan(
                        scenario: scenario, player: driver, source: source, stream: nil, flavour: nil,
                        timeout: seconds, documentedOnly: true))
                } catch {
                    throw CLIError(error.description)
                }
            }
            let played = scenario.play?.stream ?? "vod"
            let stream = "\(played) \(scenario.play?.flavour ?? StreamSource.defaultFlavour(of: played))"
            rows.append(PlayerMatrix.Row(scenario: scenario.name, reference: scenario.reference, description: scenario.description, stream: stream))
        }
        // Longest first: live runs overlap the short VOD ones instead of ending the matrix alone.
        let order = plans.indices.sorted { plans[$0].live && !plans[$1].live }
        let ordered = order.map { plans[$0] }

        let output = URL(fileURLWithPath: out ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("hlschaos-matrix-\(Int(Date().timeIntervalSince1970))").path)
        try createFolders(output)
        let harness: RunHarness
        do { harness = try await RunHarness.start(source: source, rules: book, logger: logger) } catch { throw CLIError(String(describing: error)) }
        say("hlschaos matrix: \(scenarios.count) presets × \(drivers.count) players (\(drivers.map(\.name).joined(separator: ", "))), \(jobs) at a time; output in \(output.path)")
        let started = Date()
        let counter = Counter()
        counter.sampleLoad()
        let total = ordered.count
        let results = await ChaosRun.run(ordered, harness: harness, evidence: EvidenceLocation(root: output.appendingPathComponent("evidence"), relativeTo: output), jobs: jobs, creatorVersion: ControlConfiguration().version) { result in
            guard !Task.isCancelled else { return }  // a player stopped by the interrupt: not a finding
            let done = counter.next()
            counter.sampleLoad()
            let cell = PlayerMatrix.cell(result)
            say("[\(done)/\(total)] \(PlayerMatrix.symbol(cell.mark)) \(result.name): \(cell.words) (\(String(format: "%.0f", result.seconds)) s)")
        }
        await harness.stop()
        if Task.isCancelled { return 130 }

        let load = MachineDescription.loadWords(counter.loads)
        let matrix = PlayerMatrix(
            results: results, rows: rows, players: drivers.map(\.name),
            machine: machine ?? ([MachineDescription.current()] + [load].compactMap { $0 }).joined(separator: ", "), generated: started)
        try write(matrix, to: output)
        let c = matrix.counts
        say("matrix: \(c.conforms) conform, \(c.departs) depart, \(c.unchecked) unchecked, \(c.couldNotRun) could not run, in \(Int(Date().timeIntervalSince(started))) s; \(output.appendingPathComponent("player-matrix.md").path)")
        return c.couldNotRun > 0 ? 2 : 0
    }

    private func rerender(_ paths: [String]) throws -> Int32 {
        let output = URL(fileURLWithPath: out ?? URL(fileURLWithPath: paths[0]).deletingLastPathComponent().path).standardizedFileURL
        var parts: [PlayerMatrix] = []
        for path in paths {
            var matrix: PlayerMatrix
            do {
                matrix = try RecordTime.jsonDecoder().decode(PlayerMatrix.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                throw CLIError("--from-json \(path): not a matrix.json written by hlschaos matrix (\(error))")
            }
            // Evidence paths are relative to the folder of their matrix.json; written elsewhere they become absolute.
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL
            if folder.path != output.path {
                for index in matrix.cells.indices {
                    guard let evidence = matrix.cells[index].evidence, !evidence.hasPrefix("/") else { continue }
                    matrix.cells[index].evidence = folder.appendingPathComponent(evidence).path
                }
            }
            parts.append(matrix)
        }
        let (matrix, notes) = parts.count == 1 ? (parts[0], []) : PlayerMatrix.merged(parts)
        for note in notes { say("matrix: \(note)") }
        try createFolders(output)
        try write(matrix, to: output)
        let c = matrix.counts
        say("matrix: \(matrix.rows.count) presets × \(matrix.columns.count) players (\(c.conforms) conform, \(c.departs) depart, \(c.unchecked) unchecked, \(c.couldNotRun) could not run) written in \(output.path)")
        return 0
    }

    /// The output folder and its pages' folder; before any player runs, so a bad --out fails at once.
    private func createFolders(_ output: URL) throws {
        do {
            try FileManager.default.createDirectory(at: output.appendingPathComponent("player-matrix"), withIntermediateDirectories: true)
        } catch {
            throw CLIError("--out \(output.path): cannot create it (\(error.localizedDescription))")
        }
    }

    private func write(_ matrix: PlayerMatrix, to output: URL) throws {
        let files: [(String, String)] = [
            ("player-matrix.md", matrix.markdown(pagesFolder: "player-matrix")),
            ("player-matrix.html", matrix.html()),
            ("matrix.json", String(decoding: (try? RecordTime.jsonEncoder(pretty: true).encode(matrix)) ?? Data(), as: UTF8.self)),
        ] + matrix.evidencePages().map { ("player-matrix/\($0.name).md", $0.markdown) }
        for (name, text) in files {
            do {
                try text.write(to: output.appendingPathComponent(name), atomically: true, encoding: .utf8)
            } catch {
                throw CLIError("\(output.appendingPathComponent(name).path): cannot write it (\(error.localizedDescription))")
            }
        }
    }
}

/// Counts finished runs for the progress lines and samples the load average as each ends (called
/// from the run's result callback).
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    private var samples: [Double] = []
    func next() -> Int { lock.withLock { value += 1; return value } }
    func sampleLoad() {
        guard let load = MachineDescription.loadAverage() else { return }
        lock.withLock { samples.append(load) }
    }
    var loads: [Double] { lock.withLock { samples } }
}

/// A line on stdout now, not when a pipe's buffer fills (progress of a long run in CI logs).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
