import ArgumentParser

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run everything on loopback: a private mosquitto, the service and the simulator."
    )

    func run() async throws {
        throw ValidationError("demo: not built yet")
    }
}
