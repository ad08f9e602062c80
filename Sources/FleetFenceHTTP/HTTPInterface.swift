import FleetFenceService
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The operator's window (docs/http.md "The HTTP interface"): the live map, the API over fences,
/// devices and history, the stream, metrics and health, served by Hummingbird beside the service.
/// A `Service` of the same group, so it starts and stops with it.
public final class HTTPInterface: Service, Sendable {
    private let application: Application<APIResponder>
    private let bound = BoundPort()
    private let logger: Logger
    private let feed: LiveFeed

    /// `listen`: `host:port` (`http.listen`); port 0 picks a free one, which ``port()`` and the log
    /// line `http listening` name.
    public init(service: GeofenceService, listen: String, logger: Logger) throws {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]) else {
            throw HTTPInterfaceError(reason: "http.listen must be host:port, got \(listen)")
        }
        let written = String(listen[..<colon])
        let host = written.hasPrefix("[") && written.hasSuffix("]") ? String(written.dropFirst().dropLast()) : written
        self.logger = logger
        self.feed = service.readModel.feed
        let configuration = service.configuration
        let writes = WriteGuard(tokenFile: configuration.http.tokenFile, listensOnLoopback: WriteGuard.isLoopback(host: host))
        let responder = APIResponder(
            fences: .fences(service, writes: writes),
            tours: .tours(service, writes: writes),
            devices: DevicesEndpoint(service: service),
            events: EventsEndpoint(service: service),
            stream: StreamEndpoint(service: service),
            health: HealthEndpoint(service: service),
            map: MapEndpoint(tilesURL: configuration.http.tilesURL, logger: logger),
            positions: PositionsEndpoint(service: service, writes: writes),
            webhooks: WebhooksEndpoint(service: service, writes: writes),
            logger: logger)
        let bound = self.bound
        var quiet = logger
        // Hummingbird's own per-request lines are for debugging.
        quiet.logLevel = max(logger.logLevel, .notice)
        application = Application(
            responder: responder,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "fleetfence"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? port
                bound.port.store(port, ordering: .releasing)
                logger.info("http listening", metadata: ["address": "\(host):\(port)", "port": "\(port)", "url": "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/"])
            },
            logger: quiet)
    }

    /// The port once listening (port 0 asked for a free one).
    public func port(timeout: Duration = .seconds(10)) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let port = bound.port.load(ordering: .acquiring)
            if port >= 0 { return port }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw HTTPInterfaceError(reason: "not listening within \(timeout)")
    }

    public func run() async throws {
        do {
            // Streams never end on their own: ended first, or the server's graceful shutdown would
            // wait for them for good.
            try await withGracefulShutdownHandler {
                try await application.run()
            } onGracefulShutdown: { [feed] in
                feed.finishAll()
            }
        } catch {
            // Most often a second instance on one machine with the default address (docs/several-instances.md
            // "Several instances on one machine"): say which key moves it.
            var metadata: Logger.Metadata = ["error": "\(error)"]
            if "\(error)".localizedCaseInsensitiveContains("address already in use") {
                metadata["hint"] = "another process listens there: give this instance its own http.listen (--http HOST:PORT, or empty to turn the interface off)"
            }
            logger.error("http interface failed", metadata: metadata)
            throw error
        }
    }
}

public struct HTTPInterfaceError: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}

/// Set once the server listens; -1 until then.
private final class BoundPort: Sendable {
    let port = Atomic(-1)
}
