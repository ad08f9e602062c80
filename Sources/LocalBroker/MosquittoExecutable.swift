import Foundation

/// Finds the `mosquitto` binary: Debian installs it in /usr/sbin, which is often not on
/// a normal user's PATH, Homebrew in its own sbin.
enum MosquittoExecutable {
    static func locate() throws(LocalBrokerError) -> String {
        let pathDirectories = (ProcessInfo.processInfo.environment["PATH"] ?? "")
            .split(separator: ":").map(String.init)
        let candidates = pathDirectories + ["/usr/sbin", "/usr/local/sbin", "/opt/homebrew/sbin", "/sbin"]
        for directory in candidates {
            let path = directory + "/mosquitto"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw .mosquittoNotFound(searched: ["PATH", "/usr/sbin", "/usr/local/sbin", "/opt/homebrew/sbin"])
    }
}
