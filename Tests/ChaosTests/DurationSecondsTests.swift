import Chaos
import Testing

@Suite struct DurationSecondsTests {
    /// The components' sum says what the standard library's division says.
    @Test func secondsAgreeWithTheStandardLibrarysDivision() {
        let durations: [Duration] = [
            .zero, .milliseconds(250), .seconds(1.5), .seconds(-2.25), .nanoseconds(1), .microseconds(-7),
            .seconds(86_400 * 365) + .nanoseconds(123_456_789), .milliseconds(-1), .seconds(0.1), .seconds(1) / 3,
        ]
        for duration in durations {
            #expect(duration.seconds == duration / .seconds(1), "\(duration)")
        }
    }
}
