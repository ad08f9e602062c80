/// Why a private mosquitto or NATS cluster, or `fleetfence serve` beside it, could not be started.
public enum LocalBrokerError: Error, Sendable, CustomStringConvertible {
    case mosquittoNotFound(searched: [String])
    case natsServerNotFound(searched: [String])
    /// No built `fleetfence` to start `serve` from.
    case serviceNotFound(searched: [String])
    case noFreePort(reason: String)
    case setupFailed(reason: String)
    case launchFailed(executable: String, reason: String)
    /// A broker (`program`: mosquitto, a NATS node) ended during start-up (bad configuration,
    /// port taken, ...).
    case exitedEarly(program: String, status: Int32, output: String)
    /// A broker runs but its port did not accept connections, or MQTT clients, in time.
    case notReady(program: String, port: Int, output: String)

    public var description: String {
        switch self {
        case let .mosquittoNotFound(searched):
            "mosquitto not found (looked in \(searched.joined(separator: ", "))); "
                + "install it: apt-get install mosquitto (Debian/Ubuntu) or brew install mosquitto (macOS)"
        case let .natsServerNotFound(searched):
            "nats-server not found (looked in \(searched.joined(separator: ", "))); "
                + "install it: apt-get install nats-server (Debian/Ubuntu) or brew install nats-server (macOS)"
        case let .serviceNotFound(searched):
            "fleetfence binary not found (build it first: swift build); looked at:\n" + searched.joined(separator: "\n")
        case let .noFreePort(reason):
            "no free loopback port: \(reason)"
        case let .setupFailed(reason):
            "cannot prepare the local broker: \(reason)"
        case let .launchFailed(executable, reason):
            "cannot launch \(executable): \(reason)"
        case let .exitedEarly(program, status, output):
            "\(program) exited during start-up with status \(status):\n\(output)"
        case let .notReady(program, port, output):
            "\(program) did not accept connections on 127.0.0.1:\(port) in time:\n\(output)"
        }
    }
}
