import Records

/// CMCD (docs/cmcd.md): the per-session `stripCMCD` setting, the player timeline and conformance.
extension ProxyControl {
    /// `stripCMCD` of the configuration: what sessions without a setting of their own do.
    public var stripCMCDByDefault: Bool { server.configuration.stripCMCD }

    /// Sets (nil: back to the configuration's) whether a live session's requests lose their CMCD
    /// before the upstream fetch; nil when there is no such session.
    @discardableResult
    public func setStripCMCD(_ strip: Bool?, session id: String) -> SessionSummary? {
        guard let session = server.sessions.existing(id) else { return nil }
        session.stripCMCD = strip
        return self.session(id)
    }

    /// What the player said through CMCD over the session, from its records in memory.
    public func playerTimeline(session id: String) -> PlayerTimeline {
        PlayerTimeline.build(server.records.records(session: id))
    }

    /// The session's CMCD checked against the specification, from its records in memory.
    public func cmcdConformance(session id: String) -> CMCDSessionConformance {
        CMCDSessionConformance(server.records.records(session: id))
    }
}
