extension Duration {
    /// Seconds as a Double (for arithmetic with media times and the proxy's configuration): the
    /// standard library's `Duration / Duration`, named.
    public var seconds: Double { self / .seconds(1) }
}
