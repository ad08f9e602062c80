import Foundation

/// The service's wall clock: what stamps arrivals and drives its periodic work (silence, device
/// rows, the stats line). The engine is handed every time it uses; this is where the service gets
/// them, so that a test can run the same service on a clock it moves itself.
public protocol ServiceClock: Sendable {
    /// Seconds since the epoch.
    var now: Double { get }
    /// Returns after `duration` of this clock's time, or throws on cancellation.
    func sleep(for duration: Duration) async throws
}

/// The real time, for `serve`.
public struct SystemClock: ServiceClock {
    public init() {}
    public var now: Double { Date().timeIntervalSince1970 }
    public func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}
