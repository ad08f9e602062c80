import FleetFenceHTTP
import FleetFenceService
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// `fleetfence serve` run inside the test process, as HummingbirdTesting runs a server: the same
/// `GeofenceService` in a `ServiceGroup`, without a process to spawn, on an ``InMemoryBroker``
/// (and a ``ManualClock`` if the test moves time itself) or on a real broker. Most service tests
/// use it; what only a process shows (signals, kill -9, flags) uses ``ServiceProcess``.
public final class InProcessService: Sendable {
    public let configuration: ServiceConfiguration
    public let service: GeofenceService
    /// The HTTP interface, when `http.listen` is set (tests use port 0).
    public let http: HTTPInterface?
    public let logs: LogCapture
    private let group: ServiceGroup
    private let run: Task<Bool, Never>

    /// Starts the service and returns once it is ready (connected, fences file applied).
    /// Throws, with its log, when it ends or is not ready within `readyTimeout`.
    /// `broker`: the in-memory broker to connect to instead of the configuration's `broker.url`;
    /// `clock`: the service's clock (the system's unless given).
    public static func start(
        _ configuration: ServiceConfiguration, broker: InMemoryBroker? = nil, clock: any ServiceClock = SystemClock(),
        logLevel: Logger.Level = .info, readyTimeout: Duration = .seconds(20)
    ) async throws -> InProcessService {
        let logs = LogCapture()
        let server = try FleetFenceServer(
            configuration: configuration, logger: logs.logger(level: logLevel), clock: clock, bus: broker?.factory)
        let service = server.service
        let running = InProcessService(configuration: configuration, server: server, logs: logs)
        let timedOut = Atomic(false)
        let timeout = Task {
            try await Task.sleep(for: readyTimeout)
            timedOut.store(true, ordering: .releasing)
            await running.stop()
        }
        defer { timeout.cancel() }
        // Ready, or the group ended first (a part of it failed before the service ran).
        let first = FirstAnswer()
        let readyWait = Task { first.answer(await service.untilReady()) }
        running.ended.whenEnded { first.answer(false) }
        let ready = await first.value()
        readyWait.cancel()
        guard ready else {
            let why = timedOut.load(ordering: .acquiring) ? "not ready within \(readyTimeout)" : "ended during start-up"
            throw TestSupportError("fleetfence serve (in-process) \(why):\n\(logs.text)")
        }
        return running
    }

    /// Returns once everything the service has decided so far is journaled and handed to its
    /// outputs (with an in-memory broker, ``InMemoryBroker/settled()`` then sees it delivered).
    public func untilDelivered() async {
        await service.untilDelivered()
    }

    private init(configuration: ServiceConfiguration, server: FleetFenceServer, logs: LogCapture) {
        self.configuration = configuration
        self.service = server.service
        self.http = server.http
        self.logs = logs
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: server.services, logger: logs.logger(label: "service-group")))
        self.group = group
        let ended = Ended()
        self.ended = ended
        run = Task {
            defer { ended.end() }
            do {
                try await group.run()
                return true
            } catch {
                logs.logger().error("service ended with an error", metadata: ["error": "\(error)"])
                return false
            }
        }
    }

    /// The first of several answers to one question, for one waiter.
    private final class FirstAnswer: Sendable {
        private let state = Mutex<(answer: Bool?, waiter: CheckedContinuation<Bool, Never>?)>((nil, nil))

        func answer(_ answer: Bool) {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard state.answer == nil else { return nil }
                state.answer = answer
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: answer)
        }

        func value() async -> Bool {
            await withCheckedContinuation { continuation in
                let answer = state.withLock { state in
                    if state.answer == nil { state.waiter = continuation }
                    return state.answer
                }
                if let answer { continuation.resume(returning: answer) }
            }
        }
    }

    /// Whether the service group's run has ended, and who is told when it does.
    private final class Ended: Sendable {
        private let state = Mutex<(ended: Bool, handlers: [@Sendable () -> Void])>((false, []))
        var hasEnded: Bool { state.withLock { $0.ended } }

        func end() {
            let handlers = state.withLock { state in
                state.ended = true
                defer { state.handlers = [] }
                return state.handlers
            }
            for handler in handlers { handler() }
        }

        /// `handler` runs when the run ends, or at once if it has.
        func whenEnded(_ handler: @escaping @Sendable () -> Void) {
            let now = state.withLock { state in
                if !state.ended { state.handlers.append(handler) }
                return state.ended
            }
            if now { handler() }
        }
    }

    private let ended: Ended
    private var hasEnded: Bool { ended.hasEnded }

    public var isRunning: Bool { !hasEnded }

    /// `http://127.0.0.1:<port>`, once the HTTP interface listens.
    public func httpBase() async throws -> String {
        guard let http else { throw TestSupportError("the HTTP interface is off (http.listen is empty)") }
        return "http://127.0.0.1:\(try await http.port())"
    }
    public var log: String { logs.text }

    /// A graceful shutdown, as SIGTERM: state written, `offline` said. Returns 0 for a clean
    /// stop, 1 when the service ended with an error, as the command's exit status would be.
    @discardableResult
    public func stop() async -> Int32 {
        await group.triggerGracefulShutdown()
        return await run.value ? 0 : 1
    }

    /// Reloads the fences file, as SIGHUP does.
    public func hangup() {
        service.reloadFences()
    }
}
