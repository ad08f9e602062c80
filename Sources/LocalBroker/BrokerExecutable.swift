import Foundation

/// Finds a broker's binary: Debian installs mosquitto and nats-server in /usr/sbin, which is often
/// not on a normal user's PATH, Homebrew in its own sbin.
enum BrokerExecutable {
    private static let directories = ["/usr/sbin", "/usr/local/sbin", "/opt/homebrew/sbin", "/sbin"]

    static func mosquitto() throws(LocalBrokerError) -> String {
        guard let path = locate("mosquitto") else { throw .mosquittoNotFound(searched: ["PATH"] + directories) }
        return path
    }

    static func natsServer() throws(LocalBrokerError) -> String {
        guard let path = locate("nats-server") else { throw .natsServerNotFound(searched: ["PATH"] + directories) }
        return path
    }

    private static func locate(_ name: String) -> String? {
        let pathDirectories = (ProcessInfo.processInfo.environment["PATH"] ?? "")
            .split(separator: ":").map(String.init)
        for directory in pathDirectories + directories {
            let path = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}
