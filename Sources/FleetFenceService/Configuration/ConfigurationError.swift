/// A configuration value that cannot be used, naming the key and the layer it came from.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    /// The configuration key (`geofence.debounce_s`); `nil` for problems with the config file as a whole.
    public var key: String?
    /// Where the value came from: `flag --debounce`, `environment variable FLEETFENCE_GEOFENCE_DEBOUNCE_S`,
    /// `config file Config/fleetfence.yaml`, `built-in default`; `nil` when not known.
    public var source: String?
    public var message: String

    public init(key: String?, source: String?, message: String) {
        self.key = key
        self.source = source
        self.message = message
    }

    public var description: String {
        switch (key, source) {
        case let (key?, source?): "\(key) (from \(source)): \(message)"
        case let (key?, nil): "\(key): \(message)"
        case let (nil, source?): "\(source): \(message)"
        case (nil, nil): message
        }
    }
}
