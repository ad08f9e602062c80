/// How a soak runs (`--only soak`, `Scripts/soak`; docs/performance.md "Soak").
struct SoakSettings: Sendable {
    var minutes = 60.0
    /// Positions per second; `nil`: half the broker's QoS 0 ceiling, measured first.
    var rate: Double?
    /// Seconds between two positions of a device: the fleet is `rate * interval` devices.
    var interval = 5.0
    /// Percent of the fleet replaced by new device ids every minute.
    var churnPercent = 2.0
    /// The service's `geofence.forget_after_s`: low, so that replaced devices are forgotten within the run.
    var forgetAfter = 120.0
}
