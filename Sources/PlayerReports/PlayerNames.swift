/// The names players go by in `--player`, scenario files, verdicts, JUnit and the matrix: the one
/// list of built-in drivers. `PlayerCatalog` (Players) makes a driver for each, in this order, and
/// `RuleKeys` (Chaos) and rules/schema.json accept these names in an expectation's `players`; a
/// test in PlayersTests holds the three to this list.
public enum PlayerNames {
    /// Every built-in driver, in the order the matrix shows them.
    public static let drivers = ["ffmpeg", "gstreamer", "gstreamer-legacy", "vlc", "mpv", "hlsjs", "vhs"]

    /// What an expectation's `players` calls every custom player (a `--player` command with
    /// `{url}`), whatever name the player has in a run: a scenario cannot know the names users give.
    public static let custom = "command"

    /// The names an expectation's `players` accepts.
    public static let expectable = drivers + [custom]
}
