/// Whether a player follows HLS content steering (`EXT-X-CONTENT-STEERING`, the steering manifest,
/// `PATHWAY-ID`), as observed here. A run of the demo's steering stream whose faults such a player
/// never meets (it fetches no steering manifest) is not applicable rather than failed.
public enum ContentSteeringPlayback: Sendable, Equatable {
    /// Loads the steering manifest, plays the pathway it ranks first and moves to another when one fails.
    case follows
    /// Plays the master's variants without regard to pathways; the reason says what was seen, with
    /// the version it was seen with.
    case ignores(reason: String)
    /// Not known: a custom command.
    case unknown
}
