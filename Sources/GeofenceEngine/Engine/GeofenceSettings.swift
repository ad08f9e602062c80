/// The rules' parameters, as in the contract's `geofence.*` keys.
public struct GeofenceSettings: Sendable, Hashable, Codable {
    /// Seconds a device must stay on the new side.
    public var debounceSeconds: Double = 20
    /// Metres past the boundary that count as evidence.
    public var hysteresisMeters: Double = 10
    public var minRadiusMeters: Double = 20
    public var maxRadiusMeters: Double = 100_000
    /// Samples less accurate than this never move a state.
    public var maxAccuracyMeters: Double = 100
    /// Wall-clock silence after which a pending transition is confirmed.
    public var silentConfirmSeconds: Double = 20

    public init() {}

    public init(
        debounceSeconds: Double = 20, hysteresisMeters: Double = 10, minRadiusMeters: Double = 20,
        maxRadiusMeters: Double = 100_000, maxAccuracyMeters: Double = 100, silentConfirmSeconds: Double = 20
    ) {
        self.debounceSeconds = debounceSeconds
        self.hysteresisMeters = hysteresisMeters
        self.minRadiusMeters = minRadiusMeters
        self.maxRadiusMeters = maxRadiusMeters
        self.maxAccuracyMeters = maxAccuracyMeters
        self.silentConfirmSeconds = silentConfirmSeconds
    }
}
