import AppConfiguration
import Foundation
import Proxy
import RuleLoading
import Testing

@Suite struct ConfigFileTests {
    static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config.example.json").path

    @Test func theExampleHoldsTheDefaults() throws {
        let settings = try ConfigFile.load(path: Self.example)
        let loaded = settings.proxy
        let defaults = ProxyConfiguration()
        #expect(loaded.host == defaults.host)
        #expect(loaded.port == defaults.port)
        #expect(loaded.defaultOrigin == nil)
        #expect(loaded.playlistTimeout == defaults.playlistTimeout)
        #expect(loaded.maxPlaylistBytes == defaults.maxPlaylistBytes)
        #expect(loaded.sessionIdleTimeout == defaults.sessionIdleTimeout)
        #expect(loaded.upstream.connectTimeout == defaults.upstream.connectTimeout)
        #expect(loaded.upstream.firstByteTimeout == defaults.upstream.firstByteTimeout)
        #expect(loaded.cors == defaults.cors)
        #expect(settings.logLevel == AppSettings().logLevel)
        #expect(settings.rules == RuleBook.Settings())
        #expect(settings.control.listen == .some("127.0.0.1:8081") && settings.control.token == nil, "the control API's default address")
        #expect(loaded.shutdownTimeout == defaults.shutdownTimeout)
        #expect(loaded.clients == defaults.clients)
        #expect(loaded.memory == defaults.memory)
        #expect(loaded.recordPath == nil && loaded.recordRedact == defaults.recordRedact)
        #expect(loaded.recordMaxBytes == defaults.recordMaxBytes && loaded.recordingsDirectory == defaults.recordingsDirectory)
        #expect(loaded.forward == defaults.forward && loaded.https == nil && settings.dataDirectory == nil)
        #expect(loaded.stripCMCD == defaults.stripCMCD)
    }

    @Test func cmcdSettingsAreReadAndChecked() throws {
        let settings = try ConfigFile.parse(Array(#"{"stripCMCD": true, "forward": {"sessionFromCMCD": true}}"#.utf8), file: "c.json")
        #expect(settings.proxy.stripCMCD && settings.proxy.forward.sessionFromCMCD)
        #expect {
            try ConfigFile.parse(Array(#"{"stripCMCD": "yes", "forward": {"sessionFromCMCD": 1}}"#.utf8), file: "bad.json")
        } throws: { error in
            let text = String(describing: error)
            return text.contains("bad.json: stripCMCD: expected true or false, got a string")
                && text.contains("forward.sessionFromCMCD: expected true or false")
        }
    }

    @Test func forwardAndHTTPSSettingsAreReadAndChecked() throws {
        let json = #"{"forward": {"enabled": true, "users": {"tv1": "pw"}, "password": "shared", "allowNetworks": ["192.168.1.0/24", "fd00::/8"], "intercept": ["*.cdn.example.com", "origin.example.com"], "tunnel": false, "allowPrivateTargets": true}, "https": {"port": 8443, "certificate": "c.pem", "key": "k.pem"}, "dataDir": "/var/lib/hlschaos"}"#
        let settings = try ConfigFile.parse(Array(json.utf8), file: "c.json")
        let configuration = settings.proxy
        #expect(configuration.forward.enabled && !configuration.forward.tunnel && configuration.forward.allowPrivateTargets)
        #expect(configuration.forward.users == ["tv1": "pw"] && configuration.forward.sharedPassword == "shared")
        #expect(configuration.forward.allowNetworks.map(\.description) == ["192.168.1.0/24", "fd00::/8"])
        #expect(configuration.forward.intercept == ["*.cdn.example.com", "origin.example.com"])
        #expect(configuration.https == .init(port: 8443, certificateFile: "c.pem", keyFile: "k.pem"))
        #expect(settings.dataDirectory == "/var/lib/hlschaos")
        let upstream = try ConfigFile.parse(Array(#"{"resolve": {"cdn.example.com:443": "127.0.0.1"}, "upstreamCAFile": "ca.pem"}"#.utf8), file: "u.json").proxy
        #expect(upstream.upstream.resolve == ["cdn.example.com:443": "127.0.0.1"] && upstream.upstream.extraCAFile == "ca.pem")
        #expect(throws: ConfigFile.Problems.self) { try ConfigFile.parse(Array(#"{"resolve": {"cdn.example.com": "127.0.0.1"}}"#.utf8), file: "r.json") }
        let bad = #"{"forward": {"enabled": "yes", "users": {"bad user": "x", "tv2": ""}, "password": "", "allowNetworks": ["192.168.1.0/33"], "intercept": ["*.*"], "tunel": true}, "https": {"certificate": "c.pem"}}"#
        #expect {
            try ConfigFile.parse(Array(bad.utf8), file: "bad.json")
        } throws: { error in
            let text = String(describing: error)
            return text.contains("bad.json: forward.enabled: expected true or false")
                && text.contains("forward.users.bad user: user names are session names")
                && text.contains("forward.users.tv2: expected a non-empty password")
                && text.contains("forward.password: an empty password would let anyone in")
                && text.contains("forward.allowNetworks: \"192.168.1.0/33\" is not an address or a network in CIDR form")
                && text.contains("forward.intercept: \"*.*\" is not a host name")
                && text.contains("forward.tunel: unknown key (did you mean \"tunnel\"?)")
                && text.contains("https.port: missing")
        }
    }

    @Test func theExampleDocumentsEveryKey() throws {
        let text = try String(contentsOfFile: Self.example, encoding: .utf8)
        #expect(ConfigFile.keys.count == 40)
        for key in ConfigFile.keys {
            #expect(text.contains("\"\(key)\":"), "\(key) has no value")
            #expect(text.contains("\"//\(key)\":"), "\(key) has no comment")
        }
    }

    @Test func limitsAreReadAndRangeChecked() throws {
        let json = #"{"requestHeadTimeout": "2s", "keepAliveTimeout": "30s", "maxClientConnections": 100, "maxRequestHeadBytes": 8192, "maxSessions": 50, "maxPresetsPerURL": 3, "engineCacheSize": 16, "playlistHistoryBytes": 1048576, "rewriteCacheBytes": 0, "maxLearnedHosts": 5, "shutdownTimeout": "1s"}"#
        let settings = try ConfigFile.parse(Array(json.utf8), file: "c.json")
        let configuration = settings.proxy
        #expect(configuration.clients.requestHeadTimeout == 2)
        #expect(configuration.clients.keepAliveTimeout == 30)
        #expect(configuration.clients.maxConnections == 100)
        #expect(configuration.clients.maxRequestHeadBytes == 8192)
        #expect(configuration.memory.maxSessions == 50)
        #expect(settings.rules.maxPresetsPerURL == 3)
        #expect(settings.rules.engineCacheSize == 16)
        #expect(configuration.memory.playlistHistoryBytes == 1_048_576)
        #expect(configuration.memory.rewriteCacheBytes == 0)
        #expect(configuration.memory.maxLearnedHosts == 5)
        #expect(configuration.shutdownTimeout == 1)
        let bad = #"{"maxClientConnections": 0, "maxRequestHeadBytes": 1000000, "maxSessions": 1.5, "requestHeadTimeout": "0s"}"#
        #expect {
            try ConfigFile.parse(Array(bad.utf8), file: "bad.json")
        } throws: { error in
            let text = String(describing: error)
            return text.contains("bad.json: maxClientConnections: expected a whole number of connections between 1 and 1000000")
                && text.contains("maxRequestHeadBytes: expected a whole number of bytes between 1024 and 65536")
                && text.contains("maxSessions: expected a whole number")
                && text.contains("requestHeadTimeout: expected a duration")
        }
    }

    @Test func valuesAreRead() throws {
        let json = #"{"listen": "127.0.0.1:9000", "upstream": "https://cdn.example.com/live", "origins": {"b": "http://10.0.0.1:81"}, "playlistTimeout": "3s", "cors": false}"#
        let configuration = try ConfigFile.parse(Array(json.utf8), file: "c.json").proxy
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 9000)
        #expect(configuration.defaultOrigin?.url == "https://cdn.example.com/live")
        #expect(configuration.origins["b"]?.authority == "10.0.0.1:81")
        #expect(configuration.playlistTimeout == 3)
        #expect(!configuration.cors)
    }

    /// The keys of other owners than the data plane land in their parts: the rules', the control
    /// API's, logging's and the data folder.
    @Test func eachOwnersKeysReachItsPart() throws {
        let json = #"{"rules": ["a.json", "b.json"], "presets": "extra", "control": "0.0.0.0:9001", "controlToken": "t0k", "logLevel": "debug", "dataDir": "/srv/hc"}"#
        let settings = try ConfigFile.parse(Array(json.utf8), file: "c.json")
        var rules = RuleBook.Settings()
        rules.ruleFiles = ["a.json", "b.json"]
        rules.presetDirectory = "extra"
        #expect(settings.rules == rules)
        #expect(settings.control.listen == .some("0.0.0.0:9001") && settings.control.token == "t0k")
        #expect(settings.logLevel == "debug")
        #expect(settings.dataDirectory == "/srv/hc")
        let off = try ConfigFile.parse(Array(#"{"control": null}"#.utf8), file: "off.json")
        #expect(off.control.listen == .some(nil), "null: no control API, unlike an absent key")
        #expect {
            try ConfigFile.parse(Array(#"{"logLevel": "loud", "control": 8081, "rules": "a.json"}"#.utf8), file: "bad.json")
        } throws: { error in
            let text = String(describing: error)
            return text.contains("bad.json: logLevel: \"loud\" is not one of trace, debug, info, notice, warning, error, critical")
                && text.contains("bad.json: control: expected a string, got an integer")
                && text.contains("bad.json: rules: expected a list of rule file paths")
        }
    }

    @Test func everyProblemIsReportedWithFileKeyAndFix() {
        let json = #"{"lisen": "x", "upstream": "ftp://x", "connectTimeout": "soon", "maxPlaylistBytes": "big", "cors": "yes", "cors": true}"#
        #expect {
            try ConfigFile.parse(Array(json.utf8), file: "bad.json")
        } throws: { error in
            let text = String(describing: error)
            return text.contains("bad.json: lisen: unknown key (did you mean \"listen\"?)")
                && text.contains("bad.json: upstream: \"ftp://x\" is not an absolute http(s) URL")
                && text.contains("bad.json: connectTimeout: expected a duration")
                && text.contains("bad.json: maxPlaylistBytes: expected a whole number")
                && text.contains("bad.json: cors: expected true or false")
                && text.contains("bad.json: cors: appears twice")
        }
    }

    @Test func invalidJSONNamesLineAndColumn() {
        #expect {
            try ConfigFile.parse(Array("{\n  \"listen\": \"x\",\n}".utf8), file: "c.json")
        } throws: { error in
            String(describing: error).hasPrefix("c.json: invalid JSON at line 3")
        }
    }
}

@Suite struct ConfigLinkTests {
    @Test func theLinkKeyTakesAProfileOrASpecAndNamesItsProblems() throws {
        let profile = try ConfigFile.parse(Array(#"{"link": "slow-4g"}"#.utf8), file: "c.json")
        #expect(profile.proxy.link?.spec.profile == "slow-4g")
        #expect(profile.proxy.link?.from == #"the configuration's "link""#)
        let spec = try ConfigFile.parse(Array(#"{"link": {"rate": "3Mbps", "latency": {"base": "40ms"}}}"#.utf8), file: "c.json")
        #expect(spec.proxy.link?.spec.latency.base == .milliseconds(40))
        #expect(try ConfigFile.parse(Array(#"{"link": null}"#.utf8), file: "c.json").proxy.link == nil)
        do {
            _ = try ConfigFile.parse(Array(#"{"link": {"rate": "3 megabits"}}"#.utf8), file: "c.json")
            Issue.record("accepted")
        } catch {
            #expect(error.description.hasPrefix("c.json: link.rate: invalid rate \"3 megabits\""), "\(error.description)")
        }
        do {
            _ = try ConfigFile.parse(Array(#"{"link": "slow-5g"}"#.utf8), file: "c.json")
            Issue.record("accepted")
        } catch {
            #expect(error.description.contains("link.profile: unknown profile \"slow-5g\""), "\(error.description)")
        }
    }
}
