import ArgumentParser

@main
struct FleetFence: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleetfence",
        abstract: "Server-side geofencing for vehicle fleets over MQTT.",
        subcommands: [ServeCommand.self, DemoCommand.self, EventsCommand.self, DevicesCommand.self, ClusterCommand.self]
    )
}
