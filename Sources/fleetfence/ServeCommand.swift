import ArgumentParser
import FleetFenceHTTP
import FleetFenceService
import Foundation
import Logging
import ServiceLifecycle

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Subscribe to positions, run the geofence state machines, publish alerts and state.",
        discussion: """
            Precedence: flag > environment variable FLEETFENCE_<KEY> > config file > built-in default.
            SIGTERM/SIGINT stop cleanly (offline published, journal flushed); SIGHUP reloads the fences file and the config file's webhooks.
            """
    )

    @OptionGroup var options: ServeOptions

    func run() async throws {
        LargeAllocations.mapOnTheirOwn()
        let configuration = try await ConfigurationLoader.forCommand(flags: options.flagOverrides, configFile: options.configFile)
        let logger = LogSetup.bootstrap(level: configuration.logLevel)
        let server = try FleetFenceServer(configuration: configuration, logger: logger)
        let group = ServiceGroup(
            configuration: .init(services: server.services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch let error as JournalUnwritable {
            // Non-zero, so that a supervisor restarts the service (docs/operations.md "Limits and failures").
            logger.critical("fleetfence stopped", metadata: ["error": "\(error)"])
            throw ExitCode(3)
        }
    }
}
