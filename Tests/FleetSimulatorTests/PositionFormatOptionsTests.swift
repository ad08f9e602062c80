import FleetSimulator
import GeofenceEngine
import Logging
import Testing

/// What `--format` asks of the other options (docs/simulator.md "Simulator"), checked before anything runs.
@Suite("Position formats' options")
struct PositionFormatOptionsTests {
    func options(_ format: PositionFormat, http: String? = nil, interval: Double = 1) -> SimulationOptions {
        let route = GPXRoute(name: "r", points: [RoutePoint(lat: 49.29, lon: 8.64), RoutePoint(lat: 49.2912, lon: 8.6417)], kind: .route)
        var options = SimulationOptions(routes: [route])
        options.format = format
        options.http = http
        options.fleet.interval = interval
        options.fleet.trucks = 3
        return options
    }

    func reason(_ options: SimulationOptions) -> String? {
        do {
            _ = try Simulation(options: options, logger: Logger(label: "test"))
            return nil
        } catch {
            return error.description
        }
    }

    /// The HTTP formats go to the service's HTTP interface: without `--http` there is nowhere.
    @Test(arguments: [PositionFormat.osmand, .owntracksHTTP])
    func httpFormatsNeedTheServicesURL(format: PositionFormat) {
        #expect(reason(options(format))?.contains("--http") == true)
        #expect(reason(options(format, http: "127.0.0.1:8080"))?.contains("--http") == true)
        #expect(reason(options(format, http: "http://127.0.0.1:8080")) == nil)
    }

    /// OwnTracks' `tst` is whole seconds; its devices are the service's `<user>-<device>`.
    @Test func ownTracksSamplesWholeSecondsAsFleetDevices() throws {
        #expect(reason(options(.owntracksHTTP, http: "http://127.0.0.1:8080", interval: 1.5))?.contains("whole") == true)
        let simulation = try Simulation(options: options(.owntracksHTTP, http: "http://127.0.0.1:8080", interval: 2), logger: Logger(label: "test"))
        #expect(simulation.plan.trucks.map(\.device) == ["fleet-truck-1", "fleet-truck-2", "fleet-truck-3"])
        for truck in simulation.plan.trucks {
            #expect(simulation.plan.sampleTimes(truck).allSatisfy { $0.rounded() == $0 })
        }
    }

    /// A mapping's device is its topic level, as for native positions.
    @Test func mappingNeedsTheDeviceInItsTopic() {
        var mapping = options(.mapping)
        mapping.topicTemplate = "acme/gps"
        #expect(reason(mapping)?.contains("{device}") == true)
        mapping.topicTemplate = "acme/{device}/gps"
        #expect(reason(mapping) == nil)
    }
}
