import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import Synchronization

/// Sends positions to the service's HTTP inputs (docs/trackers.md "Connecting trackers"): OsmAnd's
/// `/api/osmand` or OwnTracks' HTTP mode `/api/owntracks`, on `--http`.
///
/// Why one request at a time per truck: a tracker sends its fixes in order, and two requests of
/// one truck in flight together could arrive the other way round. Many trucks go at once, at most
/// `maxInFlight` requests, which is also the connection pool's size: the service answers a
/// request once its position is journaled, so more in flight would only queue there.
final class HTTPTruckPublisher: PositionSender {
    static let maxInFlight = 32
    /// OwnTracks' user (`X-Limit-U`): the service names the device `<user>-<device>`, so the
    /// fleet's device ids are `fleet-<prefix><k>` with this format (see `Simulation`).
    static let ownTracksUser = "fleet"
    /// Non-200 answers and failures logged before going quiet (the count is in the summary).
    static let reasonsLogged = 5

    private let client: HTTPClient
    private let base: String
    private let format: PositionFormat
    private let devices: [String]
    private let logger: Logger
    private let queues: Mutex<Queues>
    private let ready: AsyncStream<Int>
    private let readyInput: AsyncStream<Int>.Continuation
    private let dispatcher = Mutex<Task<Void, Never>?>(nil)
    private let sent = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    private let failuresLogged = Atomic<Int>(0)

    /// Per truck: the samples handed over and not yet sent (from `heads`), and whether a task is
    /// sending them (then a new sample only joins the queue).
    private struct Queues {
        var pending: [[TruckSample]]
        var heads: [Int]
        var active: [Bool]
    }

    init(base: String, format: PositionFormat, plan: FleetPlan, logger: Logger) {
        precondition(format.isHTTP, "\(format.rawValue) is not sent over HTTP")
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.format = format
        self.logger = logger
        devices = plan.trucks.map(\.device)
        queues = Mutex(Queues(
            pending: Array(repeating: [], count: plan.trucks.count), heads: Array(repeating: 0, count: plan.trucks.count),
            active: Array(repeating: false, count: plan.trucks.count)))
        (ready, readyInput) = AsyncStream.makeStream(of: Int.self)
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = Self.maxInFlight
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    var connectionCount: Int { Self.maxInFlight }
    var sentCount: Int { sent.load(ordering: .relaxed) }
    var droppedCount: Int { dropped.load(ordering: .relaxed) }

    /// Asks the service's `/healthz` (so that a wrong `--http` fails the run before it starts),
    /// then starts sending.
    func connect(timeout: Duration) async throws {
        do {
            let response = try await client.execute(HTTPClientRequest(url: base + "/healthz"), timeout: TimeAmount(timeout))
            _ = try? await response.body.collect(upTo: 1 << 16)
            guard response.status.code == 200 else { throw SimulationError.connectFailed("\(base)/healthz answered \(response.status.code)") }
        } catch {
            try? await client.shutdown()
            if let error = error as? SimulationError { throw error }
            throw SimulationError.connectFailed("\(base): \(error)")
        }
        let task = Task { [ready] in
            await withTaskGroup(of: Void.self) { group in
                var running = 0
                for await truck in ready {
                    if running >= Self.maxInFlight {
                        await group.next()
                        running -= 1
                    }
                    group.addTask { await self.drain(truck) }
                    running += 1
                }
            }
        }
        dispatcher.withLock { $0 = task }
    }

    func publish(_ sample: TruckSample) {
        let wake = queues.withLock { queues in
            queues.pending[sample.truck].append(sample)
            if queues.active[sample.truck] { return false }
            queues.active[sample.truck] = true
            return true
        }
        if wake { readyInput.yield(sample.truck) }
    }

    /// Every request handed over is answered (or failed) first: HTTP has no QoS 0 to drop them.
    func disconnect(waitFor: Duration) async {
        readyInput.finish()
        await dispatcher.withLock { $0 }?.value
        try? await client.shutdown()
    }

    /// Sends `truck`'s samples in order until its queue is empty.
    private func drain(_ truck: Int) async {
        while let sample = next(truck) {
            await send(sample)
        }
    }

    private func next(_ truck: Int) -> TruckSample? {
        queues.withLock { queues in
            let head = queues.heads[truck]
            if head < queues.pending[truck].count {
                queues.heads[truck] = head + 1
                return queues.pending[truck][head]
            }
            queues.pending[truck].removeAll(keepingCapacity: true)
            queues.heads[truck] = 0
            queues.active[truck] = false
            return nil
        }
    }

    private func send(_ sample: TruckSample) async {
        let request = Self.request(sample, device: devices[sample.truck], format: format, base: base)
        do {
            let response = try await client.execute(request, timeout: .seconds(10))
            let body = (try? await response.body.collect(upTo: 1 << 16)).map { String(buffer: $0) } ?? ""
            if response.status.code == 200 {
                sent.add(1, ordering: .relaxed)
            } else {
                fail("\(request.method.rawValue) \(Self.path(format)) for \(devices[sample.truck]): \(response.status.code) \(body.prefix(300))")
            }
        } catch {
            fail("\(request.method.rawValue) \(Self.path(format)) for \(devices[sample.truck]): \(error)")
        }
    }

    private func fail(_ reason: String) {
        dropped.add(1, ordering: .relaxed)
        let n = failuresLogged.add(1, ordering: .relaxed).newValue
        if n <= Self.reasonsLogged {
            logger.warning("position dropped: \(reason)\(n == Self.reasonsLogged ? " (further drops are only counted)" : "")")
        }
    }

    static func path(_ format: PositionFormat) -> String {
        format == .osmand ? "/api/osmand" : "/api/owntracks"
    }

    /// OsmAnd: `POST /api/osmand?id&lat&lon&timestamp&speed&bearing&accuracy`, the timestamp in
    /// epoch milliseconds (the service reads a number past 10^11 so; docs/trackers.md "Traccar Client
    /// (OsmAnd)"), speed in knots like Traccar's. OwnTracks: `POST /api/owntracks` with `X-Limit-U`
    /// and `X-Limit-D`, a `_type: location` body with `tst` in whole seconds.
    static func request(_ sample: TruckSample, device: String, format: PositionFormat, base: String) -> HTTPClientRequest {
        switch format {
        case .osmand:
            let parameters = [
                ("id", device),
                ("lat", fixed(sample.observed.lat, digits: 7)),
                ("lon", fixed(sample.observed.lon, digits: 7)),
                ("timestamp", String(Int64((sample.time * 1000).rounded()))),
                ("speed", String(TraccarTruckPayload.knots(sample))),
                ("bearing", String(Int(sample.truth.heading.rounded()))),
                ("accuracy", fixed(sample.accuracy, digits: 1)),
            ]
            let query = parameters.map { "\($0.0)=\(percentEncoded($0.1))" }.joined(separator: "&")
            var request = HTTPClientRequest(url: base + "/api/osmand?" + query)
            request.method = .POST
            return request
        default:
            var request = HTTPClientRequest(url: base + "/api/owntracks")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "X-Limit-U", value: ownTracksUser)
            request.headers.add(name: "X-Limit-D", value: String(device.dropFirst(ownTracksUser.count + 1)))
            request.body = .bytes(ByteBuffer(bytes: ownTracksBody(sample)))
            return request
        }
    }

    /// `{"_type":"location","lat":..,"lon":..,"tst":<s>,"acc":..,"vel":<km/h>}`, as the app sends it
    /// (`tst` and `vel` integers).
    static func ownTracksBody(_ sample: TruckSample) -> [UInt8] {
        var out = Array(#"{"_type":"location","lat":"#.utf8)
        TruckPayload.appendFixed(sample.observed.lat, digits: 7, &out)
        out += Array(#","lon":"#.utf8)
        TruckPayload.appendFixed(sample.observed.lon, digits: 7, &out)
        out += Array(",\"tst\":\(Int64(sample.time.rounded()))".utf8)
        out += Array(#","acc":"#.utf8)
        TruckPayload.appendFixed(sample.accuracy, digits: 0, &out)
        out += Array(",\"vel\":\(PositionFormat.ownTracksVelocity(sample.truth.speed))}".utf8)
        return out
    }

    private static func fixed(_ value: Double, digits: Int) -> String {
        var out: [UInt8] = []
        TruckPayload.appendFixed(value, digits: digits, &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
