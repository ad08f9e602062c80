import FleetFenceHTTP
import FleetFenceService
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// `fleetfence serve` run inside the test process, as HummingbirdTesting runs a server: the same
/// `GeofenceService` in a `ServiceGroup`, against a real broker, without a process to spawn. Most
/// service tests use it; what only a process shows (signals, kill -9, flags) uses
/// ``ServiceProcess``.
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
    public static func start(
        _ configuration: ServiceConfiguration, logLevel: Logger.Level = .info, readyTimeout: Duration = .seconds(20)
    ) async throws -> InProcessService {
        let logs = LogCapture()
        let server = try FleetFenceServer(configuration: configuration, logger: logs.logger(level: logLevel))
        let service = server.service
        let running = InProcessService(configuration: configuration, server: server, logs: logs)
        let deadline = ContinuousClock.now + readyTimeout
        while !service.isReady {
            if running.hasEnded {
                throw TestSupportError("fleetfence serve (in-process) ended during start-up:\n\(logs.text)")
            }
            if ContinuousClock.now >= deadline {
                await running.stop()
                throw TestSupportError("fleetfence serve (in-process) not ready within \(readyTimeout):\n\(logs.text)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        return running
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
            defer { ended.flag.store(true, ordering: .releasing) }
            do {
                try await group.run()
                return true
            } catch {
                logs.logger().error("service ended with an error", metadata: ["error": "\(error)"])
                return false
            }
        }
    }

    private final class Ended: Sendable {
        let flag = Atomic(false)
    }

    private let ended: Ended
    private var hasEnded: Bool { ended.flag.load(ordering: .acquiring) }

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
