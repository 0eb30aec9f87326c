extension CMCDData {
    /// The CMCD a record kept (`compactText`: one dictionary, not percent-encoded), read back into
    /// typed fields. Its findings are those of reading the text again, not the request's own (a
    /// record keeps those beside the text); nil for an empty text.
    public static func parse(compact text: String, limits: CMCDLimits = .default) -> CMCDData? {
        guard !text.isEmpty, text.utf8.count <= limits.maxBytesPerCarriage else { return nil }
        var findings = FindingList(limit: limits.maxFindings)
        var keyBudget = limits.maxKeys
        var data = CMCDData()
        data.carriages = [.query]
        let members = DictionaryParser.parse(Array(text.utf8), carriage: .query, keyBudget: &keyBudget, limits: limits, findings: &findings)
        data.assemble(members.map { ($0, .query) }, findings: &findings)
        data.findings = findings.all
        return data
    }
}
