import Foundation
import Players
import Testing

/// Checks shared by several presets.
enum PresetChecks {
    /// ffmpeg's frame count for the demo VOD's 960x540 variant played whole (24 s at 25 fps).
    static let wholeVODFrames = 600
    /// One 2 s segment at 25 fps.
    static let framesPerSegment = 50

    /// Segments 8-10 of the top variant answer `code`: ffmpeg logs the HTTP error and
    /// "Failed to open segment" for exactly those segments, skips them and carries on.
    static func ffmpegSkipsSegments8to10(code: Int, reason: String) -> FFmpegPlan {
        FFmpegPlan { run, faults in
            #expect(run.status == 0, "\(run.stderr)")
            #expect(Set(run.failedSegments()) == [8, 9, 10], "\(run.stderr)")
            #expect(run.mentions("HTTP error \(code) \(reason)"), "\(run.stderr)")
            #expect(run.frames == wholeVODFrames - 3 * framesPerSegment, "frames: \(run.frames)")
            #expect(faults.events.allSatisfy { $0.kind == .segment && (8...10).contains($0.msn ?? -1) && $0.variant == 2 }, "\(faults.summary)")
        }
    }

    /// hls.js: fragLoadError with `code` for the top level at sn 8; 5xx is retried once before
    /// the switch, 4xx is not retried; sn 8 then comes from a lower level and playback ends.
    static func hlsjsSwitchesDownOnFragError(code: Int) -> HlsjsPlan {
        HlsjsPlan { log, faults in
            // What the reaction report reads off the proxy's records must agree with hls.js's own log.
            let report = faults.report
            #expect(report.switches.contains { $0.direction == .down }, "no down-switch in the report: \(report.verdict)")
            if code >= 500 {
                #expect(report.retries.contains { $0.retries >= 1 }, "no retry series in the report: \(report.verdict)")
            }
            let errors = log.errors("fragLoadError")
            #expect(!errors.isEmpty, "\(log.summary)")
            for error in errors {
                #expect(error.code == code && error.level == 2 && (8...10).contains(error.sn ?? -1) && error.fatal == false, "\(log.summary)")
            }
            let attemptsAtSn8 = errors.filter { $0.sn == 8 }.count
            if code >= 500 {
                #expect(attemptsAtSn8 >= 2, "5xx is retried before switching:\n\(log.summary)")
            } else {
                #expect(attemptsAtSn8 == 1, "4xx is not retried:\n\(log.summary)")
            }
            expectLowerLevelServed(8, log)
            expectEndedCleanly(log)
        }
    }

    /// hls.js loaded fragment `sn` of the main stream from a level other than the top one.
    static func expectLowerLevelServed(_ sn: Int, _ log: BrowserLog, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(log.videoFragments.contains { $0.sn == sn && ($0.level ?? 2) < 2 }, "sn \(sn) not loaded from a lower level:\n\(log.summary)", sourceLocation: sourceLocation)
    }

    static func expectEndedCleanly(_ log: BrowserLog, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(log.ended, "did not reach ended:\n\(log.summary)", sourceLocation: sourceLocation)
        #expect(log.fatalError == nil, "fatal: \(log.summary)", sourceLocation: sourceLocation)
    }

    /// The proxy applied `rule` to the player's session.
    static func expectApplied(_ rule: String, _ faults: Faults, kind: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        let hits = faults.matching(rule: rule).filter { kind == nil || $0.kind?.rawValue == kind }
        #expect(!hits.isEmpty, "rule \(rule) was not applied\(kind.map { " to a \($0)" } ?? ""):\n\(faults.summary)", sourceLocation: sourceLocation)
    }

    /// hls.js ran a live stream for the whole observation window without a fatal error.
    static func expectLivePlayback(_ log: BrowserLog, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(log.events.contains { $0.event == "levelLoaded" && $0.live == true }, "not live:\n\(log.summary)", sourceLocation: sourceLocation)
        #expect(log.fatalError == nil, "fatal:\n\(log.summary)", sourceLocation: sourceLocation)
    }

    /// After `error`, main fragments came from a level below the top one.
    static func expectSwitchedDownAfter(_ error: BrowserLog.Event?, _ log: BrowserLog, top: Int = 2, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error, let time = error.t else {
            Issue.record("no error to switch after:\n\(log.summary)", sourceLocation: sourceLocation)
            return
        }
        #expect(log.videoFragments.contains { ($0.t ?? 0) > time && ($0.level ?? top) < top }, "no lower level after the error:\n\(log.summary)", sourceLocation: sourceLocation)
    }

    /// A reload of a level listed fewer segments at its end than an earlier one (the playlist went back in time).
    static func playlistWentBack(_ log: BrowserLog) -> Bool {
        var lastEnd: [Int: Int] = [:]
        for event in log.events where event.event == "levelLoaded" {
            guard let level = event.level, let end = event.endSN else { continue }
            if let previous = lastEnd[level], end < previous { return true }
            lastEnd[level] = end
        }
        return false
    }

    /// The longest run of consecutive reloads of one level with the same last segment.
    static func longestUnchangedReloads(_ log: BrowserLog) -> (count: Int, endSN: Int) {
        var best = (count: 0, endSN: -1)
        var current = (level: -1, endSN: -1, count: 0)
        for event in log.events where event.event == "levelLoaded" {
            guard let level = event.level, let end = event.endSN else { continue }
            if level == current.level && end == current.endSN {
                current.count += 1
            } else {
                current = (level, end, 1)
            }
            if current.count > best.count { best = (current.count, end) }
        }
        return best
    }
}
