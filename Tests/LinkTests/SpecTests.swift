import JSON
import Testing
@testable import Link

@Suite struct SpecTests {
    func spec(_ json: String, files: [String: String] = [:]) throws(LinkSpecError) -> LinkSpec {
        try LinkSpecReader.read(bytes: Array(json.utf8), traceFile: { files[$0].map { Array($0.utf8) } })
    }

    /// The problems a spec has, as `path: message` lines.
    func problems(_ json: String, files: [String: String] = [:]) -> [String] {
        do {
            _ = try spec(json, files: files)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    @Test func aFullSpecReads() throws {
        let read = try spec("""
            {"steps": [{"at": "0s", "rate": "8Mbps"}, {"at": "30s", "rate": "600kbps"}],
             "latency": {"base": "80ms", "jitter": "20ms"}, "badState": {"meanGood": "20s", "meanBad": "1s"},
             "outages": [{"at": "60s", "for": "10s"}], "duringOutage": "reset", "seed": 9, "tick": "20ms"}
            """)
        #expect(read.capacity == .steps([LinkSpec.Step(at: .zero, rate: .absolute(.mbps(8))),
                                         LinkSpec.Step(at: .seconds(30), rate: .absolute(.kbps(600)))]))
        #expect(read.latency == LinkLatency(base: .milliseconds(80), jitter: .milliseconds(20), newConnection: .milliseconds(80)))
        #expect(read.badState == BadStateModel(meanGood: .seconds(20), meanBad: .seconds(1)))
        #expect(read.outages == [Outage(start: .seconds(60), duration: .seconds(10))])
        #expect(read.duringOutage == .reset && read.seed == 9 && read.tick == .milliseconds(20))
        let link = try read.resolve(ladder: nil, defaultSeed: 1)
        #expect(link.seed == 9 && link.capacity.rate(at: .seconds(31)) == .kbps(600))
    }

    @Test func ratesAreSpeltAsInRuleFiles() throws {
        for (text, bits) in [("800kbps", 800_000), ("2Mbps", 2_000_000), ("1Gbps", 1_000_000_000), ("64KB/s", 512_000),
                             ("1.5MB/s", 12_000_000), ("1KiB/s", 8192), ("100Gbps", 100_000_000_000)] as [(String, Int64)] {
            #expect(try spec("{\"rate\": \"\(text)\"}").capacity == .constant(.absolute(LinkRate(bitsPerSecond: bits))), "\(text)")
        }
    }

    @Test func ladderRatesWaitForTheLadder() throws {
        let read = try spec(#"{"pattern": {"shape": "square", "low": "below the lowest variant", "high": "variant 2 + 10%", "step": "10s"}}"#)
        #expect(read.needsLadder)
        let ladder = [2_000_000, 800_000, 5_000_000]
        let link = try read.resolve(ladder: ladder, defaultSeed: 0)
        #expect(link.capacity.rate(at: .zero) == .mbps(5.5))
        #expect(link.capacity.rate(at: .seconds(10)) == .kbps(400))
        for (text, bits) in [("variant 0", 2_000_000), ("lowest variant - 25%", 600_000), ("the highest variant", 5_000_000),
                             ("above the highest variant", 7_500_000), ("Variant 1 +5 %", 840_000)] as [(String, Int64)] {
            let link = try spec("{\"rate\": \"\(text)\"}").resolve(ladder: ladder, defaultSeed: 0)
            #expect(link.capacity.rate(at: .zero) == LinkRate(bitsPerSecond: bits), "\(text)")
        }
    }

    @Test func aLadderRateWithoutALadderSaysWhatIsMissing() throws {
        let read = try spec(#"{"steps": [{"at": "0s", "rate": "8Mbps"}, {"at": "30s", "rate": "variant 2"}]}"#)
        #expect(throws: LinkSpecError("$.steps[1].rate", "\"variant 2\" is relative to the ladder, but no master playlist with variants has been fetched yet (fetch the master first, or give an absolute rate such as \"2Mbps\")")) {
            try read.resolve(ladder: nil, defaultSeed: 0)
        }
        #expect(throws: LinkSpecError("$.steps[1].rate", "\"variant 2\" names variant 2, but the master has 2 variants (0–1)")) {
            try read.resolve(ladder: [1_000_000, 2_000_000], defaultSeed: 0)
        }
        let squeezed = try spec(#"{"pattern": {"shape": "square", "low": "lowest variant", "high": "highest variant", "step": "5s"}}"#)
        #expect(throws: LinkSpecError("$.pattern.high", "high (highest variant = 1Mbps) must be above low (lowest variant = 1Mbps)")) {
            try squeezed.resolve(ladder: [1_000_000], defaultSeed: 0)
        }
    }

    @Test func profilesCarryDevToolsNumbers() throws {
        let slow = try spec(#"{"profile": "slow-3g"}"#).resolve(ladder: nil, defaultSeed: 0)
        #expect(slow.capacity.rate(at: .zero) == .kbps(400) && slow.latency.base == .seconds(2) && slow.latency.newConnection == .zero)
        #expect(LinkProfile.named("fast-3g") == .slow4G)
        #expect(LinkProfile.slow4G.rate.bytesPerSecond == 180_000 && LinkProfile.slow4G.latency.base == .microseconds(562_500))
        #expect(LinkProfile.fast4G.rate.bytesPerSecond == 1_012_500 && LinkProfile.fast4G.latency.base == .milliseconds(165))
        // A profile's values are a start: what the spec gives replaces them.
        let mine = try spec(#"{"profile": "fast-4g", "rate": "20Mbps", "outages": [{"at": "5s", "for": "1s"}]}"#)
        #expect(mine.capacity == .constant(.absolute(.mbps(20))) && mine.latency.base == .milliseconds(165) && mine.profile == "fast-4g")
    }

    @Test func traceFilesAreReadThroughTheCallersLoader() throws {
        let read = try spec(#"{"trace": {"file": "traces/commute.csv"}}"#, files: ["traces/commute.csv": "0,1000\n1,2000\n"])
        guard case .trace(_, let name) = read.capacity else { Issue.record("not a trace"); return }
        #expect(name == "traces/commute.csv")
        let inline = try spec(#"{"trace": {"text": "0\n1\n", "format": "mahimahi"}}"#)
        #expect(try inline.resolve(ladder: nil, defaultSeed: 0).capacity.rate(at: .zero) == .mbps(24))
    }

    @Test func badRatesSayWhatIsWrong() {
        #expect(problems(#"{"rate": "-5Mbps"}"#) == ["$.rate: a rate cannot be negative: \"-5Mbps\""])
        #expect(problems(#"{"rate": "0kbps"}"#) == ["$.rate: a constant rate of 0 never delivers anything (use \"outages\" for a link that is down)"])
        #expect(problems(#"{"rate": "200Gbps"}"#) == ["$.rate: the rate 200Gbps is above the limit of 100Gbps (a unit too many?)"])
        #expect(problems(#"{"rate": "2 megabits"}"#) == ["$.rate: invalid rate \"2 megabits\" (use a number and kbps, Mbps, Gbps, B/s, KB/s or MB/s: \"800kbps\", \"2Mbps\", \"64KB/s\")"])
        #expect(problems(#"{"rate": 2000000}"#) == ["$.rate: expected a string, got an integer"])
        #expect(problems(#"{"rate": "variant two"}"#) == ["$.rate: invalid variant number \"two\" in \"variant two\" (variants are counted from 0 in the master's order)"])
        #expect(problems(#"{"rate": "variant 1 * 2"}"#).first?.hasPrefix("$.rate: invalid ladder-relative rate \"variant 1 * 2\" (write it as one of \"variant 2\"") == true)
        // "1 0%" was read as 10% while the words were glued together; a percentage is one number.
        #expect(problems(#"{"rate": "variant 1 + 1 0%"}"#) == [#"$.rate: invalid ladder-relative rate "variant 1 + 1 0%" (write it as one of "variant 2", "variant 2 + 10%", "lowest variant - 20%", "highest variant", "below the lowest variant", "above the highest variant")"#])
        #expect(problems(#"{"rate": "variant 1 - 100%"}"#) == ["$.rate: \"variant 1 - 100%\" takes away all of the variant's bandwidth (a change must stay above -100%)"])
    }

    @Test func badShapesSayWhatIsWrong() {
        #expect(problems(#"{}"#) == ["$: the link has no capacity: give one of \"rate\", \"steps\", \"pattern\", \"trace\", or a \"profile\""])
        #expect(problems(#"{"rate": "1Mbps", "steps": []}"#) == ["$.steps: give one capacity only: \"rate\" is already given (one of \"rate\", \"steps\", \"pattern\", \"trace\")"])
        #expect(problems(#"{"rat": "1Mbps"}"#) == ["$.rat: unknown key \"rat\" (did you mean \"rate\"?)",
                                                  "$: the link has no capacity: give one of \"rate\", \"steps\", \"pattern\", \"trace\", or a \"profile\""])
        #expect(problems(#"{"profile": "slow-5g"}"#) == ["$.profile: unknown profile \"slow-5g\" (did you mean \"slow-3g\"?); the profiles are \"slow-3g\", \"slow-4g\", \"fast-4g\", \"fast-3g\""])
        #expect(problems(#"{"pattern": {"shape": "square", "low": "1Mbps", "high": "2Mbps"}}"#)
            == ["$.pattern: missing required key \"step\" (how long each level lasts, such as \"10s\")"])
        #expect(problems(#"{"pattern": {"shape": "saw", "low": "2Mbps", "high": "1Mbps", "step": "0s"}}"#)
            == ["$.pattern.shape: unknown shape \"saw\"; expected one of \"square\", \"rampUp\", \"rampDown\", \"pyramid\"",
                "$.pattern.step: a step must last at least 1ms (how long each level lasts, such as \"10s\")",
                "$.pattern.high: high (1Mbps) must be above low (2Mbps)"])
        // 198 steps of 20000h overflow the period's nanoseconds: making the link trapped before this was checked.
        #expect(problems(#"{"pattern": {"shape": "pyramid", "low": "1Mbps", "high": "2Mbps", "step": "20000h", "levels": 100}}"#)
            == ["$.pattern.step: the pattern's period, 198 steps of 72000000s, is over about 31 years: use a shorter step"])
        #expect(throws: Never.self) { try spec(#"{"pattern": {"shape": "square", "low": "1Mbps", "high": "2Mbps", "step": "20000h"}}"#) }
        #expect(problems(#"{"pattern": {"shape": "square", "low": "1Mbps", "high": "2Mbps", "step": "1s", "levels": 3}}"#)
            == ["$.pattern.levels: a square wave has two levels, high and low: leave \"levels\" out"])
        #expect(problems(#"{"steps": [{"at": "5s", "rate": "1Mbps"}, {"at": "2s", "rate": "0bps"}]}"#)
            == ["$.steps[0].at: the first step must be at \"0s\" (the link needs a rate from the start), got \"5s\""])
        #expect(problems(#"{"steps": [{"at": "0s", "rate": "1Mbps"}, {"at": "0s", "rate": "2Mbps"}]}"#)
            == ["$.steps[1].at: \"0s\" is not after the previous step's \"0s\" (steps must be in time order)"])
        #expect(problems(#"{"steps": [{"at": "0s", "rate": "0kbps"}]}"#)
            == ["$.steps: every step's rate is 0: the link would never deliver anything (use \"outages\" for a link that is down)"])
        #expect(problems(#"{"rate": "1Mbps", "latency": {"base": "10ms", "jitter": "20ms"}, "tick": "100ms"}"#)
            == ["$.latency.jitter: jitter (20ms) is more than the base latency (10ms): a latency cannot go below 0",
                "$.tick: a tick must be between 1ms and 50ms (the link's shaping granularity), got \"100ms\""])
        #expect(problems(#"{"rate": "1Mbps", "badState": {"meanGood": "1s", "meanBad": "1ms"}, "outages": [{"at": "1s", "for": "0s"}], "duringOutage": "drop"}"#)
            == ["$.badState.meanBad: meanBad must be at least 10ms, got \"1ms\"",
                "$.outages[0].for: an outage of 0s does nothing (give how long the link stays down, such as \"10s\")",
                "$.duringOutage: unknown duringOutage \"drop\"; expected one of \"wait\", \"reset\""])
        #expect(problems(#"{"rate": "1Mbps", "latency": "-5ms"}"#) == ["$.latency: a duration cannot be negative: \"-5ms\""])
        #expect(problems("{\"rate\": ") == ["$: invalid JSON at line 1, column 10: unexpected end of the document"])
    }

    @Test func badTracesNameTheFileAndLine() {
        func traceProblems(_ text: String, _ name: String = "commute.mahi") -> [String] {
            problems("{\"trace\": {\"file\": \"\(name)\"}}", files: [name: text])
        }
        #expect(traceProblems("") == ["$.trace.file: commute.mahi: the trace has no lines (each line is one time in milliseconds at which 1,500 bytes may leave)"])
        #expect(traceProblems("0\n5\n3\n") == ["$.trace.file: commute.mahi line 3: 3 ms is before the previous line's 5 ms (times must not decrease)"])
        #expect(traceProblems("0\n5x\n") == ["$.trace.file: commute.mahi line 2: \"5x\" is not a whole number of milliseconds (each line is one time in milliseconds, such as 0 or 17)"])
        #expect(traceProblems("0\n\n5\n") == ["$.trace.file: commute.mahi line 2: the line is empty (each line is one time in milliseconds)"])
        #expect(traceProblems("0\n0\n") == ["$.trace.file: commute.mahi: the trace lasts 0 ms: its last time is its period and must be above 0"])
        #expect(traceProblems(String(repeating: "1\n", count: 500_001)) == ["$.trace.file: commute.mahi: the trace has 500001 lines; the limit is 500000 lines: shorten it or lower its resolution"])
        #expect(traceProblems(String(repeating: "1", count: 4_000_001)) == ["$.trace.file: commute.mahi: the trace is 4000001 bytes; the limit is 4000000 bytes (4 MB): shorten it or lower its resolution"])
        #expect(traceProblems("0,1000\n1,abc\n", "c.csv") == ["$.trace.file: c.csv line 2: the rate \"abc\" is not a number (kilobits per second, such as 800 or 0)"])
        #expect(traceProblems("0,1000\n1,-5\n", "c.csv") == ["$.trace.file: c.csv line 2: the rate \"-5\" is negative (kilobits per second, such as 800 or 0)"])
        #expect(traceProblems("0,1000\n2,10\n1,5\n", "c.csv") == ["$.trace.file: c.csv line 3: the time 1 s is not after the previous row's 2 s (times must increase)"])
        #expect(traceProblems("0,1000\n99999999999999,5\n", "c.csv") == ["$.trace.file: c.csv line 2: the time 99999999999999 s is over about 31 years (seconds from the start, such as 0, 1.5)"])
        #expect(traceProblems("3,1000\n", "c.csv") == ["$.trace.file: c.csv line 1: the first row is at 3 s; a trace starts at 0 (subtract the first time from every row)"])
        #expect(traceProblems("0,1000,7\n", "c.csv") == ["$.trace.file: c.csv line 1: expected two columns, seconds,kbps (such as \"1.5,800\"), got \"0,1000,7\""])
        #expect(traceProblems("0,200000000\n", "c.csv") == ["$.trace.file: c.csv line 1: the rate 200000000 kbps is above the limit of 100Gbps (a unit too many?)"])
        #expect(traceProblems("0,0\n5,0\n", "c.csv") == ["$.trace.file: c.csv: every rate in the trace is 0: the link would never carry anything (use an outage for a link that is down)"])
        #expect(traceProblems("# nothing\n", "c.csv") == ["$.trace.file: c.csv: the trace has no rows (expected lines of seconds,kbps)"])
        #expect(problems(#"{"trace": {"file": "missing.mahi"}}"#) == ["$.trace.file: cannot read the trace file \"missing.mahi\" (check the path and that the file is readable)"])
        #expect(problems(#"{"trace": {"format": "pcap", "text": "1"}}"#) == ["$.trace.format: unknown format \"pcap\"; expected one of \"mahimahi\", \"csv\""])
    }

    @Test func problemsCarryTheCallersPath() throws {
        let value = try JSONValue.parse(Array(#"{"rate": "fast"}"#.utf8))
        #expect(throws: LinkSpecError("$.link.rate", "invalid rate \"fast\" (use a number and kbps, Mbps, Gbps, B/s, KB/s or MB/s: \"800kbps\", \"2Mbps\", \"64KB/s\")")) {
            try LinkSpecReader.read(value, path: "$.link")
        }
    }
}

@Suite struct SpecWriterTests {
    /// What the API echoes reads back as the same spec.
    @Test(arguments: [
        #"{"profile": "slow-3g"}"#,
        #"{"rate": "variant 1 - 10%", "latency": {"base": "562.5ms", "jitter": "20ms"}, "duringOutage": "reset", "seed": 7}"#,
        #"{"steps": [{"at": "0s", "rate": "8Mbps"}, {"at": "30s", "rate": "below the lowest variant"}], "outages": [{"at": "1s", "for": "10s"}]}"#,
        #"{"pattern": {"shape": "pyramid", "low": "600kbps", "high": "4Mbps", "step": "10s", "levels": 5, "repeat": false}, "badState": {"meanGood": "5s", "meanBad": "500ms"}, "tick": "20ms"}"#,
    ])
    func aSpecWrittenReadsBackTheSame(_ text: String) throws {
        let spec = try LinkSpecReader.read(bytes: Array(text.utf8))
        let again = try LinkSpecReader.read(LinkSpecWriter.json(spec))
        #expect(again == spec, "\(LinkSpecWriter.json(spec).serialized(.oneLine))")
    }
}
