import FleetFenceService
import FleetFenceTesting
import Foundation
import GeofenceEngine
import Synchronization
import Testing

// End-to-end support: a private mosquitto, the service (in-process, or the real `fleetfence
// serve` as a child process where only a process shows it), a collector subscribed to
// everything the service writes, and a publisher for positions.

// MARK: Geometry and times

/// Fixed event times: every test's samples are `T + offset` seconds.
let T: Double = 1_795_600_000  // 2026-11-25T09:46:40Z

/// Positions along a meridian, where the great-circle distance is exactly the latitude difference
/// times the metres per degree, so that a sample's distance to a circle's boundary is exact.
enum Geo {
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180
    /// SAP SE WDF01, the example of docs/topics-and-payloads.md "Topics and payloads".
    static let lat = 49.293406
    static let lon = 8.641362

    /// The point `metres` north of (`lat`, `lon`) (south when negative).
    static func north(_ metres: Double, of lat: Double = Geo.lat, lon: Double = Geo.lon) -> (lat: Double, lon: Double) {
        (lat + metres / metresPerDegree, lon)
    }
}

/// RFC 3339 UTC with milliseconds, computed independently of the service's codec.
func rfc3339(_ seconds: Double) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: Date(timeIntervalSince1970: seconds))
}

/// Seconds since the epoch of an RFC 3339 time with fractional seconds, `nil` if it is not one.
func parseRFC3339(_ text: String) -> Double? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.date(from: text)?.timeIntervalSince1970
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ`, exactly.
func isMillisecondUTC(_ text: String) -> Bool {
    text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil
}

// MARK: JSON

/// A decoded JSON object (the service's payloads), with typed accessors.
struct JSONObject: CustomStringConvertible {
    let object: [String: Any]
    let text: String

    init?(_ bytes: [UInt8]) {
        guard let value = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]),
            let object = value as? [String: Any]
        else { return nil }
        self.object = object
        self.text = String(decoding: bytes, as: UTF8.self)
    }

    var keys: Set<String> { Set(object.keys) }
    func string(_ key: String) -> String? { object[key] as? String }
    func double(_ key: String) -> Double? {
        guard let number = object[key] as? NSNumber, !isBool(number) else { return nil }
        return number.doubleValue
    }
    func int(_ key: String) -> Int? {
        guard let value = double(key), value == value.rounded() else { return nil }
        return Int(value)
    }
    func strings(_ key: String) -> [String]? { object[key] as? [String] }
    func bool(_ key: String) -> Bool? {
        guard let number = object[key] as? NSNumber, isBool(number) else { return nil }
        return number.boolValue
    }
    /// Seconds since the epoch of an RFC 3339 field.
    func time(_ key: String) -> Double? { string(key).flatMap(parseRFC3339) }

    var description: String { text }

    /// JSON `true`/`false` come back as NSNumbers of a char type, numbers never do.
    private func isBool(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }
}

/// One alert as received.
struct Alert: CustomStringConvertible {
    let message: ReceivedMessage
    let json: JSONObject

    var topic: String { message.topic }
    var event: String? { json.string("event") }
    var fence: String? { json.string("fence") }
    var seq: Int? { json.int("seq") }
    var at: Double? { json.time("at") }
    var confirmedAt: Double? { json.time("confirmed_at") }
    var description: String { "\(message.topic) \(json.text)" }
}

/// Within a millisecond and a bit (times are written with milliseconds).
func near(_ value: Double?, _ expected: Double, tolerance: Double = 0.0015) -> Bool {
    guard let value else { return false }
    return abs(value - expected) <= tolerance
}

// MARK: Fences

enum Fences {
    /// A GeoJSON Point feature with a radius.
    static func circle(
        _ id: String, lat: Double = Geo.lat, lon: Double = Geo.lon, radius: Double, name: String? = nil,
        notify: [String]? = nil, dwell: Double? = nil
    ) -> [String: Any] {
        var properties: [String: Any] = ["id": id, "radius": radius]
        if let name { properties["name"] = name }
        if let notify { properties["notify"] = notify }
        if let dwell { properties["dwell_s"] = dwell }
        return ["type": "Feature", "properties": properties, "geometry": ["type": "Point", "coordinates": [lon, lat]]]
    }

    /// A FeatureCollection of `features`.
    static func collection(_ features: [[String: Any]]) -> String {
        json(["type": "FeatureCollection", "features": features])
    }

    /// A plain `set` definition of a circle.
    static func circleDefinition(
        lat: Double = Geo.lat, lon: Double = Geo.lon, radius: Double, name: String? = nil, notify: [String]? = nil
    ) -> String {
        var object: [String: Any] = ["lat": lat, "lon": lon, "radius": radius]
        if let name { object["name"] = name }
        if let notify { object["notify"] = notify }
        return json(object)
    }

    static func json(_ object: Any) -> String {
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}

// MARK: The harness

struct HarnessOptions {
    var fences: String = Fences.collection([Fences.circle("depot", radius: 200, name: "Depot")])
    /// The service's settings, by key, given to it as the flags of `fleetfence serve`: as a process,
    /// and in-process through the service's own loader. The broker, the fences file, the journal
    /// and the client id are the harness's own. The defaults: a 2 s debounce; a long silent
    /// confirmation, so that a busy machine pausing between two publishes cannot confirm a pending
    /// change by silence (the silence tests set it short); stats every second (tests wait for
    /// their lines); no HTTP interface (tests that want one set `http.listen` to port 0).
    var settings: [ConfigurationKey: String] = [
        .debounce: "2", .silentConfirm: "30", .statsInterval: "1", .httpListen: "",
    ]
    /// The config file's text, for what only a file holds (`webhooks`, `inputs.mappings`); `nil`: an
    /// empty file. In-process runs write it to ``ServiceHarness/configFile``, which SIGHUP reads again.
    var configText: String?
    /// The webhooks' retry waits (in-process runs only): not a setting, tests shorten them.
    var webhookBackoff = WebhookBackoff()
    /// How the test reaches the HTTP interface (in-process runs only): `.socket` listens on a free
    /// port; `.routed` binds nothing, and the write rule reads `http.listen` (loopback unless set).
    var http = HTTPAccess.none
    /// The listen address the write rule of a routed interface reads.
    var routedListen: String {
        guard let listen = settings[.httpListen], !listen.isEmpty else { return "127.0.0.1:0" }
        return listen
    }
    /// What the collector follows besides the service's own prefix (Home Assistant, OwnTracks).
    var extraFilters: [String] = []
    /// A topic the service reads as a position of `barrierDevice`, used by `barrier()`.
    var barrierTopic = "fleet/zz-barrier/position"
    var barrierDevice = "zz-barrier"
    /// Broker persistence (for restarting the broker), in the test's directory.
    var brokerPersistence = false
    /// Lines added to the broker's configuration, e.g. ``DynamicSecurity/brokerConfig(allowingSubscriptionsTo:directory:)``.
    var brokerConfig = ""
    /// A journal path relative to the service's working directory (the test's directory);
    /// `nil`: an absolute path in it. Only a process has a working directory of its own.
    var relativeJournal: String?
    /// The real `fleetfence serve` as a child process: for signals, kill -9 and the command line.
    /// Otherwise the service runs in the test's process.
    var process = false
    /// A real mosquitto rather than the in-memory broker: for what only it shows (its restarts,
    /// persistence, dynamic security). A process, persistence or broker lines imply it.
    var realBroker = false
    /// The service on a clock the test moves (``ServiceHarness/advance(by:)``), starting at the
    /// real time: silence, forgetting and arrival times without real seconds of waiting.
    var manualClock = false
    var needsRealBroker: Bool { realBroker || process || brokerPersistence || !brokerConfig.isEmpty }

    /// A setting; `nil` leaves it to the service's default.
    subscript(key: ConfigurationKey) -> String? {
        get { settings[key] }
        set { settings[key] = newValue }
    }

    /// `topics.prefix` as the service will use it.
    var prefix: String { ServiceProcess.Options(settings).effectivePrefix }

    /// The defaults, with the service as a process.
    static var asProcess: HarnessOptions {
        var options = HarnessOptions()
        options.process = true
        return options
    }
}

/// How a test reaches the HTTP interface.
enum HTTPAccess {
    case none
    /// Requests routed in-process to the interface over the running service (HummingbirdTesting's
    /// `.router`, ``ServiceHarness/routedHTTP(_:)``): everything but the socket.
    case routed
    /// The interface listening on a free loopback port, as `fleetfence serve` runs it: for what only
    /// a socket shows (binding, the stream, a browser).
    case socket
}

/// The service under test, however it runs.
enum RunningService: Sendable {
    case inProcess(InProcessService)
    case process(ServiceProcess)

    var isRunning: Bool {
        switch self {
        case let .inProcess(service): service.isRunning
        case let .process(service): service.isRunning
        }
    }

    /// A clean stop (SIGTERM for a process); its exit status, 0 when clean.
    @discardableResult
    func terminate() async -> Int32 {
        switch self {
        case let .inProcess(service): await service.stop()
        case let .process(service): await service.terminate()
        }
    }

    /// Reloads the fences file (SIGHUP for a process).
    func hangup() {
        switch self {
        case let .inProcess(service): service.hangup()
        case let .process(service): service.hangup()
        }
    }

    var log: String {
        switch self {
        case let .inProcess(service): service.log
        case let .process(service): service.log
        }
    }

    /// The process, for what only a process has (kill -9, its id); `nil` in-process.
    var process: ServiceProcess? {
        if case let .process(service) = self { return service }
        return nil
    }
}

/// Sendable, so that a test's requests routed in-process (HummingbirdTesting's closures are
/// `@Sendable`) can use it between them.
final class ServiceHarness: Sendable {
    /// The real mosquitto, when the options ask for one; otherwise everything runs on `memory`.
    let mosquitto: LocalMosquitto?
    let memory: InMemoryBroker?
    let directory: String
    let options: HarnessOptions
    let clientID: String
    var service: RunningService? { state.withLock { $0.service } }
    private struct State {
        var service: RunningService?
        /// The logs of earlier runs of the service in this test (in-process runs keep no file).
        var earlierLogs: [String] = []
        var barriers = 0
    }
    private let state = Mutex(State())
    let collector: MessageCollector
    let publisher: any MessageBus
    /// The service's clock when `options.manualClock`; it lives as long as the harness, across
    /// restarts of the service.
    let clock: ManualClock?

    /// The real broker; fails the test when it runs on the in-memory one.
    var broker: LocalMosquitto {
        get throws {
            guard let mosquitto else { throw TestSupportError("this test needs options.realBroker = true") }
            return mosquitto
        }
    }

    var prefix: String { options.prefix }
    var fencesPath: String { directory + "/fences.geojson" }
    /// Where the journal is, absolute.
    var journalPath: String { directory + "/" + (options.relativeJournal ?? "journal.db") }
    var url: String { get throws { try broker.url } }

    private init(
        mosquitto: LocalMosquitto?, memory: InMemoryBroker?, directory: String, options: HarnessOptions, clientID: String,
        collector: MessageCollector, publisher: any MessageBus
    ) {
        self.mosquitto = mosquitto
        self.memory = memory
        // A whole second: the times it stamps are then exact in milliseconds.
        self.clock = options.manualClock ? ManualClock(now: Date().timeIntervalSince1970.rounded(.down)) : nil
        self.directory = directory
        self.options = options
        self.clientID = clientID
        self.collector = collector
        self.publisher = publisher
    }

    /// Broker, fences file, collector, publisher and service; everything started is stopped again
    /// when a later step fails.
    static func start(_ options: HarnessOptions, directory: String) async throws -> ServiceHarness {
        try options.fences.write(toFile: directory + "/fences.geojson", atomically: true, encoding: .utf8)
        let prefix = options.prefix
        let clientID = "fleetfence-test-\(UUID().uuidString.prefix(8))"
        let filters = [prefix + "/#"] + options.extraFilters
        guard options.needsRealBroker else {
            let memory = InMemoryBroker()
            let collector = try await MessageCollector.start(broker: memory, filters: filters, cleanSession: false)
            let harness = ServiceHarness(
                mosquitto: nil, memory: memory, directory: directory, options: options, clientID: clientID,
                collector: collector, publisher: try await memory.connectedClient())
            try await harness.startService()
            return harness
        }
        let persistence = options.brokerPersistence ? directory + "/mosquitto" : nil
        if let persistence { try FileManager.default.createDirectory(atPath: persistence, withIntermediateDirectories: true) }
        let broker = try LocalMosquitto.start(extraConfig: options.brokerConfig, persistenceDirectory: persistence)
        var collector: MessageCollector?
        var publisher: MQTTClient?
        do {
            // A persistent session: what the service says while the collector reconnects (broker
            // restart) is queued for it rather than lost.
            collector = try await MessageCollector.start(
                url: broker.url, filters: filters, clientID: "collector-\(UUID().uuidString.prefix(8))", cleanSession: false)
            publisher = try await broker.connectedClient()
            let harness = ServiceHarness(
                mosquitto: broker, memory: nil, directory: directory, options: options, clientID: clientID,
                collector: collector!, publisher: publisher!)
            try await harness.startService()
            return harness
        } catch {
            await collector?.stop()
            await publisher?.disconnect()
            broker.stop()
            throw error
        }
    }

    /// How the service is started: the options' settings with the harness's broker, fences file,
    /// journal and client id; a process takes them as flags, the in-process service through
    /// ``configuration(for:)``.
    var serviceOptions: ServiceProcess.Options {
        var service = ServiceProcess.Options(options.settings, configText: options.configText)
        service[.brokerURL] = mosquitto?.url ?? "mqtt://in-memory"
        service[.fencesFile] = fencesPath
        service[.journalPath] = options.process ? options.relativeJournal ?? journalPath : journalPath
        service[.clientID] = clientID
        switch options.http {
        case .socket: if service[.httpListen]?.isEmpty ?? true { service[.httpListen] = "127.0.0.1:0" }
        // Routed requests need no socket: the interface the test routes to reads the address.
        case .routed: service[.httpListen] = ""
        case .none: break
        }
        return service
    }

    /// The config file of the in-process service: `configText`, or an empty file.
    var configFile: String { directory + "/fleetfence.yaml" }

    /// What `fleetfence serve` would run with, given `service` as its flags: the service's own
    /// loader (flags > environment > config file > defaults), on the config file written as for a
    /// process, without our `FLEETFENCE_*` variables.
    func configuration(for service: ServiceProcess.Options) async throws -> ServiceConfiguration {
        let command = service.commandLine(configFile: configFile)
        try command.writeConfigFile()
        var configuration = try await ConfigurationLoader.load(
            flags: command.flags, environment: command.environment, configFile: configFile)
        configuration.webhookBackoff = options.webhookBackoff
        return configuration
    }

    /// Starts (or restarts) the service on the same journal and client id.
    /// Ready means `online` said and the fences file read (the service loads it just after
    /// connecting; its log says when).
    /// Starts the service again on the same journal and broker; `changing` sets what this start
    /// sets otherwise (a setting switched on since).
    func startService(changing change: (inout ServiceProcess.Options) -> Void = { _ in }) async throws {
        state.withLock { state in
            if let log = state.service?.log { state.earlierLogs.append(log) }
        }
        var serviceOptions = self.serviceOptions
        change(&serviceOptions)
        guard options.process else {
            let configuration = try await configuration(for: serviceOptions)
            let service = try await InProcessService.start(configuration, broker: memory, clock: clock ?? SystemClock())
            state.withLock { $0.service = .inProcess(service) }
            await clock?.untilSleeping()
            return
        }
        let process = try await ServiceProcess.start(serviceOptions, workingDirectory: directory)
        state.withLock { $0.service = .process(process) }
        let deadline = ContinuousClock.now + .seconds(10)
        while !process.log.contains("fences loaded") && !process.log.contains("fences not loaded") {
            guard ContinuousClock.now < deadline else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The service's process; fails the test when it runs in-process.
    var process: ServiceProcess {
        get throws {
            guard let process = service?.process else { throw TestSupportError("this test needs options.process = true") }
            return process
        }
    }

    /// Stops everything; on failure, writes the service's log to standard error.
    func shutdown(failed: Bool) async {
        if let service {
            if service.isRunning { await service.terminate() }
            if failed || ProcessInfo.processInfo.environment["FLEETFENCE_TEST_SERVICE_LOG"] != nil {
                FileHandle.standardError.write(Data("---- fleetfence log:\n\(serviceLogs)\n".utf8))
            }
        }
        await collector.stop()
        await publisher.disconnect()
        mosquitto?.stop()
    }

    /// The logs of every run of the service in this test.
    var serviceLogs: String {
        state.withLock { $0.earlierLogs + [$0.service?.log ?? ""] }.joined(separator: "\n----\n")
    }

    // MARK: Publishing

    /// Publishes and waits for the broker's acknowledgement.
    func publish(_ topic: String, _ payload: [UInt8], qos: Int32 = 1, retain: Bool = false) async throws {
        // A real broker's publisher reconnects by itself after the broker's restart.
        let deadline = ContinuousClock.now + .seconds(10)
        while !publisher.isConnected {
            guard ContinuousClock.now < deadline else { throw TestSupportError("publisher not connected") }
            try await Task.sleep(for: .milliseconds(10))
        }
        let result = publisher.publish(topic: topic, payload: payload, qos: qos, retain: retain)
        guard result.isAccepted else { throw TestSupportError("publish to \(topic): \(result)") }
        guard await publisher.waitForPublishes(timeout: .seconds(10)) else {
            throw TestSupportError("publish to \(topic) not acknowledged")
        }
    }

    func publish(_ topic: String, _ payload: String, qos: Int32 = 1, retain: Bool = false) async throws {
        try await publish(topic, Array(payload.utf8), qos: qos, retain: retain)
    }

    /// A native position of `device` on `fleet/<device>/position`, `metres` north of the centre.
    func position(
        _ device: String, north metres: Double, ts: Double?, of centre: (lat: Double, lon: Double) = (Geo.lat, Geo.lon),
        acc: Double? = nil, topic: String? = nil
    ) async throws {
        let point = Geo.north(metres, of: centre.lat, lon: centre.lon)
        var object: [String: Any] = ["lat": point.lat, "lon": point.lon]
        if let ts { object["ts"] = ts }
        if let acc { object["acc"] = acc }
        try await publish(topic ?? "fleet/\(device)/position", Fences.json(object))
    }

    /// Returns once the service has handled everything published before: a message it must
    /// reject goes in behind them, and its answer on the errors topic comes out behind their
    /// alerts and state (one connection each way, handled in order).
    ///
    /// On the in-memory broker it waits for the events themselves: every message handled, every
    /// step journaled and published, and those messages handled by the collector.
    func barrier(timeout: Duration = .seconds(10)) async throws {
        if let memory, case let .inProcess(service)? = service {
            await memory.settled()
            await service.untilDelivered()
            await memory.settled()
            return
        }
        let count = state.withLock { state in
            state.barriers += 1
            return state.barriers
        }
        let token = "barrier-\(count)-\(UUID().uuidString.prefix(8))"
        try await publish(options.barrierTopic, token)
        let topic = "\(prefix)/errors/\(options.barrierDevice)"
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if collector.collected.contains(where: { $0.topic == topic && $0.text.contains(token) }) { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestSupportError("barrier \(token) not answered on \(topic) within \(timeout)")
    }

    /// Moves the service's manual clock by `seconds`, a tick at a time, then waits for what that
    /// made it say. What was published before arrives first, at the time it was published.
    func advance(by seconds: Double) async throws {
        guard let clock else { throw TestSupportError("this test needs options.manualClock = true") }
        try await barrier()
        await clock.advance(by: seconds, step: 0.25)
        try await barrier()
    }

    // MARK: Reading

    /// Another subscriber, on whichever broker the harness runs.
    func collector(_ filters: [String]) async throws -> MessageCollector {
        if let memory { return try await MessageCollector.start(broker: memory, filters: filters) }
        return try await MessageCollector.start(url: try broker.url, filters: filters)
    }

    func messages(_ filter: String) -> [ReceivedMessage] {
        collector.collected.filter { MQTTTopicFilter.matches(filter, topic: $0.topic) }
    }

    /// Alerts of `device` received so far (all devices when nil), in arrival order.
    func alerts(_ device: String? = nil) -> [Alert] {
        messages("\(prefix)/alerts/\(device ?? "+")/#").compactMap { message in
            JSONObject(message.payload).map { Alert(message: message, json: $0) }
        }
    }

    /// Waits until `device` has at least `count` alerts; returns them all.
    @discardableResult
    func waitForAlerts(_ device: String, count: Int, timeout: Duration = .seconds(10)) async -> [Alert] {
        _ = await collector.messages(matching: "\(prefix)/alerts/\(device)/#", count: count, timeout: timeout)
        return alerts(device)
    }

    /// Waits until `filter` matched at least `count` messages; returns them all.
    @discardableResult
    func waitForMessages(_ filter: String, count: Int = 1, timeout: Duration = .seconds(10)) async -> [ReceivedMessage] {
        await collector.messages(matching: filter, count: count, timeout: timeout)
    }

    /// The state messages of `device` received so far.
    func states(_ device: String) -> [JSONObject] {
        messages("\(prefix)/state/\(device)").compactMap { JSONObject($0.payload) }
    }

    /// Errors answered for `scope` (a device, or `fences`).
    func errors(_ scope: String) -> [ReceivedMessage] {
        messages("\(prefix)/errors/\(scope)")
    }

    /// What a subscriber arriving now gets for `filter`: the retained messages.
    func retained(_ filter: String, settle: Duration = .milliseconds(300)) async throws -> [ReceivedMessage] {
        if let memory {
            try await barrier()
            return memory.retained(filter).map { message in
                var retained = message
                retained.retain = true
                return retained
            }
        }
        let late = try await MessageCollector.start(url: try broker.url, filters: [filter])
        try await Task.sleep(for: settle)
        let messages = late.collected
        await late.stop()
        return messages
    }

    /// Waits until a retained message on `topic` satisfies `condition`; returns the last one seen.
    func waitForRetained(
        _ topic: String, timeout: Duration = .seconds(10), _ condition: (ReceivedMessage?) -> Bool
    ) async throws -> ReceivedMessage? {
        let deadline = ContinuousClock.now + timeout
        var last: ReceivedMessage?
        repeat {
            let seen = collector.collected.count
            last = try await retained(topic, settle: .milliseconds(150)).last
            if condition(last) { return last }
            // In memory the retained store changes only with a message the collector also gets.
            if memory != nil { await collector.wait(timeout: deadline - ContinuousClock.now) { $0.count > seen } }
        } while ContinuousClock.now < deadline
        return last
    }

    /// Waits until the service's log contains `text`.
    func waitForLog(_ text: String, timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if serviceLogs.contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}

/// Polls `condition` until it holds or `timeout` passes; returns its last value.
func eventually(timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return true
}

/// Runs `body` against a fresh broker and service in a fresh directory, and stops both whatever
/// happens; the service's log is printed when `body` throws (always with FLEETFENCE_TEST_SERVICE_LOG=1).
func withService<Result>(
    _ options: HarnessOptions = HarnessOptions(),
    isolation: isolated (any Actor)? = #isolation,
    _ body: (ServiceHarness) async throws -> Result
) async throws -> Result {
    try await withTemporaryDirectory { directory in
        let harness = try await ServiceHarness.start(options, directory: directory)
        do {
            let value = try await body(harness)
            await harness.shutdown(failed: false)
            return value
        } catch {
            await harness.shutdown(failed: true)
            throw error
        }
    }
}
