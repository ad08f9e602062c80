import FleetFenceService
import Logging
import ServiceLifecycle

/// The services `fleetfence serve` runs, in the order they start (and stop in reverse): the
/// geofence service, then its HTTP interface unless `http.listen` is empty. One place, so the
/// command and the tests' in-process service run the same thing.
public struct FleetFenceServer: Sendable {
    public let service: GeofenceService
    public let http: HTTPInterface?

    /// `clock` and `bus`: the system clock and libmosquitto unless a test gives its own.
    public init(
        configuration: ServiceConfiguration, logger: Logger, clock: any ServiceClock = SystemClock(), bus: MessageBusFactory? = nil
    ) throws {
        let service = GeofenceService(configuration: configuration, logger: logger, clock: clock, bus: bus)
        self.service = service
        http = try configuration.http.listen.map { try HTTPInterface(api: service, listen: $0, logger: logger) }
    }

    public var services: [any Service] { [service] + (http.map { [$0] } ?? []) }
}
