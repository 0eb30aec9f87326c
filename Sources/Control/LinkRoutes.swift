import Chaos
import Foundation
import Hummingbird
import JSON
import Link
import Presets
import Proxy

/// A session's link (docs/link.md): `GET /api/sessions/{id}/link` shows what runs, where it came
/// from and its history in 250 ms buckets (capacity set, throughput delivered, time down);
/// `PUT` sets the session's own link (a link spec, the body of a scenario's `"link"`), which takes
/// effect at once, also on bodies in flight; `DELETE` clears it (the layers' link, or none, from
/// the next request); `POST …/link/cut` takes the link down for a while ("cut the link for 10 s").
extension ControlAPI {
    func registerLinkRoutes(on router: Router<BasicRequestContext>) {
        router.get("/api/sessions/{id}/link") { _, context in try link(context) }
        router.put("/api/sessions/{id}/link") { request, context in try await putLink(request, context) }
        router.delete("/api/sessions/{id}/link") { _, context in try deleteLink(context) }
        router.post("/api/sessions/{id}/link/cut") { request, context in try await cutLink(request, context) }
    }

    func link(_ context: BasicRequestContext) throws -> Response {
        let id = try sessionID(context)
        return JSONOutput.response(try linkJSON(id))
    }

    func putLink(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try sessionID(context)
        guard proxy.session(id) != nil else { throw APIError.noSession(id) }
        let body = try await readJSON(request)
        let spec: LinkSpec
        do {
            // A spec sent to the API names only the traces shipped with hlschaos: a client may not
            // have the server read its files (inline traces go in "text").
            spec = try LinkSpecReader.read(body, traceFile: BuiltInPresets.trace)
        } catch {
            throw Self.invalidLink(error, "the body must be a link spec such as {\"profile\": \"slow-3g\"} or {\"rate\": \"2Mbps\"} (docs/link.md)")
        }
        do {
            guard try proxy.setLink(LinkChoice(spec: spec, from: "the control API"), session: id) else { throw APIError.noSession(id) }
        } catch let error as LinkSpecError {
            throw Self.invalidLink(error, "the link cannot run on this session's ladder; the running link is kept")
        }
        return JSONOutput.response(try linkJSON(id))
    }

    func deleteLink(_ context: BasicRequestContext) throws -> Response {
        let id = try sessionID(context)
        guard try proxy.setLink(nil, session: id) else { throw APIError.noSession(id) }
        return JSONOutput.response(try linkJSON(id))
    }

    func cutLink(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try sessionID(context)
        let duration: Duration
        do {
            duration = try LinkSpecReader.readCut(try await readJSON(request))
        } catch let error as LinkSpecError {
            throw Self.invalidLink(error, #"the body must say how long the link is down, such as {"for": "10s"}"#)
        }
        switch proxy.cutLink(session: id, for: duration) {
        case nil: throw APIError.noSession(id)
        case false?:
            throw APIError(.conflict, "session \"\(id)\" has no link running to cut: set one first (PUT /api/sessions/\(id)/link)")
        case true?: return JSONOutput.response(try linkJSON(id))
        }
    }

    private static func invalidLink(_ error: LinkSpecError, _ message: String) -> APIError {
        APIError.badRequest(message, problems: error.problems.map { .init(file: "request", path: $0.path, message: $0.message) })
    }

    private func linkJSON(_ id: String) throws(APIError) -> LinkJSON {
        guard let view = proxy.link(session: id), let own = proxy.ownLink(session: id) else { throw APIError.noSession(id) }
        return LinkJSON(session: id, view: view, own: own != nil)
    }
}

/// `GET /api/sessions/{id}/link`. Rates in bits per second, times in seconds.
struct LinkJSON: Encodable {
    var session: String
    /// "none", "waitingForLadder" (a ladder-relative spec before the master) or "running".
    var status: String
    /// Where the link comes from: `the control API`, `scenario "link-slow-3g"`, `serve --link`.
    var from: String?
    /// The link was set on this session through the API (`DELETE` clears it).
    var own: Bool
    /// Why the wanted link does not run (the one before it keeps running).
    var problem: String?
    var profile: String?
    /// The spec of the link wanted, every value written out (`LinkSpecWriter`): reading it back as
    /// a `PUT` body gives the same link; a trace is named, not listed.
    var spec: EncodedJSONValue?
    /// The capacity the schedule sets now.
    var capacity: Int64?
    var latency: Latency?
    var badState: BadState?
    var duringOutage: String?
    var setAt: Date?
    /// Responses on the link now.
    var flows: Int
    /// The variants' BANDWIDTH in the master's order (reference lines for a chart).
    var ladder: [Int]
    var history: History

    struct Latency: Encodable { var base: Double, jitter: Double, newConnection: Double }
    struct BadState: Encodable { var meanGood: Double, meanBad: Double }

    /// The newest buckets, oldest first; the last is the bucket under way.
    struct History: Encodable {
        /// When the first bucket starts.
        var start: Date?
        var bucketSeconds: Double
        /// The capacity set, averaged over each bucket.
        var capacity: [Int64]
        /// The throughput delivered to the session's responses in each bucket.
        var delivered: [Int64]
        /// Seconds of each bucket the link was down (bad state or outage).
        var down: [Double]
    }

    init(session: String, view: ProxyControl.LinkView, own: Bool) {
        let snapshot = view.snapshot
        self.session = session
        status = switch snapshot.status {
        case .none: "none"
        case .waitingForLadder: "waitingForLadder"
        case .running: "running"
        }
        from = snapshot.choice?.from
        self.own = own
        problem = snapshot.problem
        profile = snapshot.choice?.spec.profile
        spec = snapshot.choice.map { EncodedJSONValue(LinkSpecWriter.json($0.spec)) }
        flows = snapshot.flows
        ladder = view.ladder
        let wall = { (instant: Duration) in view.at.addingTimeInterval(-(snapshot.now - instant).seconds) }
        if let link = snapshot.link {
            capacity = link.capacity.rate(at: max(.zero, snapshot.now - snapshot.setAt)).bitsPerSecond
            latency = Latency(base: link.latency.base.seconds, jitter: link.latency.jitter.seconds, newConnection: link.latency.newConnection.seconds)
            badState = link.badState.map { BadState(meanGood: $0.meanGood.seconds, meanBad: $0.meanBad.seconds) }
            duringOutage = link.duringOutage.rawValue
            setAt = wall(snapshot.setAt)
        }
        history = History(
            start: snapshot.buckets.first.map { wall($0.start) }, bucketSeconds: LinkBucket.length.seconds,
            capacity: snapshot.buckets.map(\.capacity.bitsPerSecond), delivered: snapshot.buckets.map(\.delivered.bitsPerSecond),
            down: snapshot.buckets.map(\.downTime.seconds))
    }
}
