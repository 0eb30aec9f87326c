extension Duration {
    /// Seconds as a Double (for arithmetic with media times and the proxy's configuration). From
    /// the components: the standard library's `Duration / Duration` divides 128-bit integers, and
    /// every request's record asks for its duration.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18  // 1e18 is exact in a Double
    }
}
