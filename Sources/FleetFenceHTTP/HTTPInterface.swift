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
    /// The Hummingbird application the interface runs; tests route requests to it in-process
    /// (HummingbirdTesting's `.router`) without running it.
    public let application: Application<APIResponder>
    private let bound = BoundPort()
    private let logger: Logger
    private let feed: LiveFeed

    /// `listen`: `host:port` (`http.listen`); port 0 picks a free one, which ``port(timeout:)`` and
    /// the log line `http listening` name. Nothing is bound before ``run()``.
    public init(api: any FleetFenceAPI, listen: String, logger: Logger) throws {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]) else {
            throw HTTPInterfaceError(reason: "http.listen must be host:port, got \(listen)")
        }
        let written = String(listen[..<colon])
        let host = written.hasPrefix("[") && written.hasSuffix("]") ? String(written.dropFirst().dropLast()) : written
        self.logger = logger
        self.feed = api.readModel.feed
        let settings = api.httpSettings
        let responder = APIRoutes.responder(
            api: api,
            writes: WriteGuard(tokenFile: settings.tokenFile, listensOnLoopback: WriteGuard.isLoopback(host: host)),
            map: MapEndpoint(tilesURL: settings.tilesURL, logger: logger))
        let bound = self.bound
        var quiet = logger
        // Hummingbird's own per-request lines are for debugging.
        quiet.logLevel = max(logger.logLevel, .notice)
        application = Application(
            responder: responder,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "fleetfence"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? port
                logger.info("http listening", metadata: ["address": "\(host):\(port)", "port": "\(port)", "url": "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/"])
                bound.listening(on: port)
            },
            logger: quiet)
    }

    /// The port once listening (port 0 asked for a free one); throws when not listening within
    /// `timeout`.
    public func port(timeout: Duration = .seconds(10)) async throws -> Int {
        let bound = self.bound
        let port = await withTaskGroup(of: Int?.self) { group in
            group.addTask { await bound.port() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        try Task.checkCancellation()
        guard let port else { throw HTTPInterfaceError(reason: "not listening within \(timeout)") }
        return port
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
            // Most often a second instance on one machine with the default address
            // (docs/several-instances.md "Several instances on one machine"): say which key moves it.
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

/// The bound port, told once by `onServerRunning` to everyone waiting for it and to everyone who
/// asks later.
private final class BoundPort: Sendable {
    private enum State {
        case waiting([Int: CheckedContinuation<Int?, Never>], nextID: Int)
        case listening(Int)
    }

    private let state = Mutex(State.waiting([:], nextID: 0))

    func listening(on port: Int) {
        let waiting = state.withLock { state -> [CheckedContinuation<Int?, Never>] in
            guard case let .waiting(waiting, _) = state else { return [] }
            state = .listening(port)
            return Array(waiting.values)
        }
        for continuation in waiting { continuation.resume(returning: port) }
    }

    /// The port, or `nil` when the waiting task is cancelled first.
    func port() async -> Int? {
        let id = state.withLock { state -> Int in
            guard case let .waiting(waiting, nextID) = state else { return -1 }
            state = .waiting(waiting, nextID: nextID + 1)
            return nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now: Int?? = state.withLock { state in
                    switch state {
                    case let .listening(port):
                        return .some(port)
                    case .waiting(var waiting, let nextID):
                        // Cancelled before this registered: the handler found nothing to resume.
                        if Task.isCancelled { return .some(nil) }
                        waiting[id] = continuation
                        state = .waiting(waiting, nextID: nextID)
                        return .none
                    }
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Int?, Never>? in
                guard case .waiting(var waiting, let nextID) = state else { return nil }
                let continuation = waiting.removeValue(forKey: id)
                state = .waiting(waiting, nextID: nextID)
                return continuation
            }
            continuation?.resume(returning: nil)
        }
    }
}
