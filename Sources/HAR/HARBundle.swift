import BundleFormat
import Records
import Foundation

/// What `HARImport.write` wrote.
public struct HARImportOutput: Sendable {
    public var directory: String
    /// nil when there was nothing to reproduce.
    public var scenarioPath: String?
    public var bundlePath: String
    public var manifest: BundleManifest
    /// The throughput the HAR's timings show, as a link trace (`link.csv`); nil when no entry's
    /// timings say how fast its body came.
    public var linkPath: String?
    /// What the field device's player said through CMCD (`player.json`); nil when it said nothing.
    public var playerPath: String?
}

extension HARImport {
    public static let scenarioFile = "scenario.json"
    public static let bundleDirectory = "bundle"
    public static let linkFile = "link.csv"
    public static let playerFile = "player.json"

    /// Writes `out/scenario.json` (when there is something to reproduce) and `out/bundle/`: each
    /// entry as an exchange — `at` from its startedDateTime, status, headers, the body from
    /// `content.text`, timings (connect; first byte ≈ blocked + dns + connect + send + wait; total =
    /// time). `out` must not exist or be empty: nothing is overwritten. With `redact`, the bundle
    /// loses cookies, Authorization and query tokens before anything is written.
    @discardableResult
    public func write(to out: String, redact: Bool = false) throws(HARImportError) -> HARImportOutput {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        var created = false
        if files.fileExists(atPath: out, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw HARImportError(file: out, "exists and is not a directory: give --out a new directory")
            }
            let contents = (try? files.contentsOfDirectory(atPath: out)) ?? []
            guard contents.isEmpty else {
                throw HARImportError(file: out, "already exists and is not empty (\(contents.sorted().prefix(3).joined(separator: ", "))): import-har never overwrites; choose a new --out or remove it")
            }
        } else {
            do {
                try files.createDirectory(atPath: out, withIntermediateDirectories: true)
            } catch {
                throw HARImportError(file: out, "cannot be created: \(error.localizedDescription)")
            }
            created = true
        }
        let directory = URL(fileURLWithPath: out)
        let scenarioURL = directory.appendingPathComponent(Self.scenarioFile)
        let bundleURL = directory.appendingPathComponent(Self.bundleDirectory)
        func undo() {
            if created { try? files.removeItem(at: directory) } else {
                try? files.removeItem(at: scenarioURL)
                try? files.removeItem(at: bundleURL)
                try? files.removeItem(at: directory.appendingPathComponent(Self.linkFile))
                try? files.removeItem(at: directory.appendingPathComponent(Self.playerFile))
            }
        }
        do throws(HARImportError) {
            if let scenarioText {
                do {
                    try Data(scenarioText.utf8).write(to: scenarioURL, options: .atomic)
                } catch {
                    throw HARImportError(file: scenarioURL.path, "cannot be written: \(error.localizedDescription)")
                }
            }
            let manifest = try writeBundle(to: bundleURL, redact: redact)
            let linkWritten = try writeLink(to: directory.appendingPathComponent(Self.linkFile))
            let playerWritten = try writePlayer(to: directory.appendingPathComponent(Self.playerFile))
            // Paths as the user gave --out, for messages.
            return HARImportOutput(directory: out, scenarioPath: scenarioText == nil ? nil : (out as NSString).appendingPathComponent(Self.scenarioFile),
                                   bundlePath: (out as NSString).appendingPathComponent(Self.bundleDirectory), manifest: manifest,
                                   linkPath: linkWritten ? (out as NSString).appendingPathComponent(Self.linkFile) : nil,
                                   playerPath: playerWritten ? (out as NSString).appendingPathComponent(Self.playerFile) : nil)
        } catch {
            undo()
            throw error
        }
    }

    /// `link.csv`: the throughput the HAR's timings show (`ObservedThroughput`): each entry's body
    /// size (`bodySize`, else `content.size`) between its first byte and its end; false when no entry
    /// says both.
    private func writeLink(to url: URL) throws(HARImportError) -> Bool {
        let arrivals = zip(log.entries, offsets).map { entry, offset in
            ObservedThroughput.Arrival(
                at: offset, firstByte: entry.status == 0 ? nil : entry.timings.firstByte, total: entry.time,
                bytes: entry.bodySize.flatMap { $0 > 0 ? $0 : nil } ?? entry.contentSize ?? entry.body?.count)
        }
        guard let text = ObservedThroughput.csv(arrivals) else { return false }
        do {
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw HARImportError(file: url.path, "cannot be written: \(error.localizedDescription)")
        }
        return true
    }

    /// `player.json`: the field player's CMCD timeline, as `GET /api/sessions/{id}/player` gives a
    /// session's; false when no request carried CMCD.
    private func writePlayer(to url: URL) throws(HARImportError) -> Bool {
        guard let fieldPlayer else { return false }
        do {
            try RecordTime.jsonEncoder(pretty: true).encode(fieldPlayer).write(to: url, options: .atomic)
        } catch {
            throw HARImportError(file: url.path, "cannot be written: \(error.localizedDescription)")
        }
        return true
    }

    private func writeBundle(to url: URL, redact: Bool) throws(HARImportError) -> BundleManifest {
        let entries = log.entries
        let starts = Self.starts(entries)
        let started = starts.compactMap { $0 }.min() ?? Date()
        let entryURL = zip(entries, classifications).first { $1.target?.kind == .master }?.0.url
            ?? zip(entries, classifications).first { $1.target?.kind == .media || ($1.isHLS && $1.target == nil) }?.0.url
        let writer: BundleWriter
        do {
            writer = try BundleWriter(destination: url, source: .har, entry: entryURL, redact: redact, started: started)
        } catch {
            throw HARImportError(file: error.path, error.problem)
        }
        let ends = entries.indices.map { index in (starts[index] ?? started).addingTimeInterval(entries[index].time ?? 0) }
        let order = entries.indices.sorted { (ends[$0], $0) < (ends[$1], $1) }
        do {
            for index in order {
                let entry = entries[index]
                var body: Exchange.BodyReference?
                if let bytes = entry.body, !bytes.isEmpty { body = try writer.storeBody(bytes) }
                try writer.append(exchange(entry, index: index, at: (starts[index] ?? started).timeIntervalSince(started), body: body))
            }
            return try writer.finish(at: ends.max() ?? started)
        } catch {
            throw HARImportError(file: error.path, error.problem)
        }
    }

    private func exchange(_ entry: HAREntry, index: Int, at: Double, body: Exchange.BodyReference?) -> Exchange {
        var ending = Exchange.Ending.complete
        var error = entry.error
        switch observations[index].outcome {
        case .fault(let fault):
            switch fault.wire {
            case .truncate?: ending = .truncated
            case .resetBeforeHeaders?, .resetAfter?: ending = entry.status == 0 && !(entry.error ?? "").lowercased().contains("reset") ? .failed : .reset
            case .hang?, .stall?: ending = .timeout
            default: break
            }
        case .cancelled(let why):
            ending = .failed
            error = error ?? why
        case .ok, .cached:
            if entry.status == 0 { ending = .failed }
        }
        if entry.status == 0, error == nil { error = "no response" }
        let timings = Exchange.Timings(connect: entry.timings.connect, firstByte: entry.status == 0 ? nil : entry.timings.firstByte,
                                       total: entry.time)
        return Exchange(
            at: (at * 1000).rounded() / 1000, method: entry.method, url: entry.url, range: entry.requestHeader("range"),
            status: entry.status == 0 ? nil : entry.status, headers: entry.responseHeaders, body: body,
            ending: ending, error: ending == .complete ? nil : error, timings: timings,
            kind: classifications[index].target?.kind.rawValue)
    }
}
