import FleetFenceService
import NIOPosix

/// Blocking work (the journal's SQLite, a walk of every device) on NIO's pool of blocking threads,
/// never on an event loop. A failure is a 503: with the service's own reason when it cannot take
/// the request (``ServiceUnavailable``), else `failure` and the error.
func offloaded<T: Sendable>(_ failure: String, _ body: @escaping @Sendable () throws -> T) async throws(HTTPProblem) -> T {
    do {
        return try await NIOThreadPool.singleton.runIfActive { try body() }
    } catch let unavailable as ServiceUnavailable {
        throw HTTPProblem(status: .serviceUnavailable, reason: unavailable.reason)
    } catch {
        throw HTTPProblem(status: .serviceUnavailable, reason: "\(failure): \(error)")
    }
}
