import Chaos
import Foundation
import Players

/// Which stream a scenario plays and for how long. A scenario can name the demo stream it is
/// written for (`"play": {"stream": "live", "flavour": "aes", "for": "30s"}`: a live-only fault
/// needs the live stream, a key fault the encrypted flavour); `--stream`/`--flavour` given on the
/// command line win, and a `--url` source plays as it is.
public enum StreamChoice {
    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    public static func plan(
        scenario: Scenario, player: any PlayerDriver, source: StreamSource, stream: String?, flavour: String?,
        timeout: Double, documentedOnly: Bool
    ) throws(Invalid) -> CellPlan {
        switch source {
        case .url:
            return CellPlan(scenario: scenario, player: player, path: nil, live: false, timeout: timeout, documentedOnly: documentedOnly)
        case .demo:
            let hint = scenario.play
            let chosenStream = stream ?? hint?.stream ?? "vod"
            let chosenFlavour = flavour ?? hint?.flavour ?? StreamSource.defaultFlavour(of: chosenStream)
            let demo: StreamSource
            do {
                demo = try StreamSource.checkedDemo(stream: chosenStream, flavour: chosenFlavour)
            } catch {
                throw Invalid(description: "\(scenario.name): \(error.description)")
            }
            // A live stream never ends: the scenario's own play time ends the run (a link's plan or a
            // fault's end is written for it), else the timeout.
            let seconds = demo.isLive ? hint?.seconds ?? timeout : timeout
            return CellPlan(
                scenario: scenario, player: player, path: demo.demoPath, live: demo.isLive,
                timeout: seconds, documentedOnly: documentedOnly)
        }
    }
}
