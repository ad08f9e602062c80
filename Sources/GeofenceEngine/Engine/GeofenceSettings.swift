/// The rules' parameters, the `geofence.*` keys of docs/configuration.md "Configuration".
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
    /// How far a sample's event time may be ahead of its arrival: one from further in the future
    /// would make every real sample after it stale.
    public var maxFutureSeconds: Double = 300
    /// Wall-clock silence after which a device is forgotten (30 days).
    public var forgetAfterSeconds: Double = 2_592_000
    /// How far behind a device's latest sample a late one is still merged (docs/rules.md "Late
    /// samples"); 0 drops every sample not newer than the latest.
    public var lateWindowSeconds: Double = 3600
    /// How many recent samples a device holds for merging late ones, at 56 bytes each
    /// (fleetbench's memory phase): four keep the live fix that ends a gap and the fixes around
    /// it. While a backlog arrives the device holds all of it (`GeofenceEngine.backlogSamples`).
    public var heldSamples: Int = 4

    public init() {}

    public init(
        debounceSeconds: Double = 20, hysteresisMeters: Double = 10, minRadiusMeters: Double = 20,
        maxRadiusMeters: Double = 100_000, maxAccuracyMeters: Double = 100, silentConfirmSeconds: Double = 20,
        maxFutureSeconds: Double = 300, forgetAfterSeconds: Double = 2_592_000, lateWindowSeconds: Double = 3600,
        heldSamples: Int = 4
    ) {
        self.lateWindowSeconds = lateWindowSeconds
        self.heldSamples = heldSamples
        self.maxFutureSeconds = maxFutureSeconds
        self.forgetAfterSeconds = forgetAfterSeconds
        self.debounceSeconds = debounceSeconds
        self.hysteresisMeters = hysteresisMeters
        self.minRadiusMeters = minRadiusMeters
        self.maxRadiusMeters = maxRadiusMeters
        self.maxAccuracyMeters = maxAccuracyMeters
        self.silentConfirmSeconds = silentConfirmSeconds
    }
}
