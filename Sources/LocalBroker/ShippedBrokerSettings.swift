import Foundation

/// The lines of a shipped mosquitto.conf (Config/mosquitto.conf) that decide what a broker crash
/// loses: persistence, how often it is saved, queue limits, the QoS 1 window and Nagle. Read from
/// the file itself, so that a test of crashes runs against what is shipped, not a copy of it that
/// drifts; the listener, logging and where the file is saved stay the private broker's own.
public struct ShippedBrokerSettings: Sendable {
    /// The options taken from the file, as mosquitto.conf lines, in the file's order.
    public let lines: [String]

    static let options: Set<String> = [
        "persistence", "persistence_file", "autosave_interval", "autosave_on_changes", "max_queued_messages",
        "max_queued_bytes", "max_inflight_messages", "persistent_client_expiration", "queue_qos0_messages",
        "set_tcp_nodelay",
    ]

    public init(contentsOf path: String) throws(LocalBrokerError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .setupFailed(reason: "reading \(path): \(error)")
        }
        lines = text.split(whereSeparator: \.isNewline).compactMap { line in
            let words = line.split(whereSeparator: \.isWhitespace)
            guard let option = words.first, Self.options.contains(String(option)) else { return nil }
            return words.joined(separator: " ")
        }
    }

    /// For `LocalMosquitto.start(extraConfig:persistenceDirectory:)`: each line replaces the
    /// private broker's default for its option.
    public var extraConfig: String { lines.joined(separator: "\n") }

    /// The value of `option`, if the file sets it.
    public func value(of option: String) -> String? {
        lines.last { $0.hasPrefix(option + " ") }.map { String($0.dropFirst(option.count + 1)) }
    }

    /// The persistence file's name (mosquitto's default when the file names none).
    public var persistenceFile: String { value(of: "persistence_file") ?? "mosquitto.db" }

    /// Seconds between saves; mosquitto's default is 30 minutes.
    public var autosaveSeconds: Double { value(of: "autosave_interval").flatMap(Double.init) ?? 1800 }
}
