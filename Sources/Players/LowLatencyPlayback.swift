/// How a player plays an LL-HLS stream (rfc8216bis: parts, blocking playlist reloads, preload
/// hints), as observed on the demo's `/ll/` through the proxy (docs/players-browser.md and
/// docs/native-players.md, "LL-HLS"). A cell of an LL fault for a player that does not play LL as
/// LL has nothing to judge: its requests never carry the directives or parts the fault targets.
public enum LowLatencyPlayback: Sendable, Equatable {
    /// As LL: blocking reloads (`_HLS_msn`/`_HLS_part`) and parts.
    case parts
    /// As ordinary live (whole segments, plain reloads) or not at all; the reason says what was
    /// seen, with the version it was seen with.
    case wholeSegments(reason: String)
    /// Not known: a custom command.
    case unknown
}
