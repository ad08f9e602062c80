import LocalBroker

/// Runs `body` against a fresh private mosquitto and stops it afterwards, also when
/// `body` throws.
public func withLocalBroker<Result>(
    extraConfig: String = "",
    persistenceDirectory: String? = nil,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (LocalMosquitto) async throws -> Result
) async throws -> Result {
    let broker = try LocalMosquitto.start(extraConfig: extraConfig, persistenceDirectory: persistenceDirectory)
    defer { broker.stop() }
    return try await body(broker)
}
