/// The part of a fence every sample at it reads: geometry, margin cap, expiry, and what a sample
/// inside also needs (dwell, speed limit), without touching the definition's strings: one read
/// for a device inside a fence. The full fence is fetched only when something is alerted.
struct FenceProbe: Sendable {
    let geometry: Fence.Geometry
    let marginCap: Double
    /// `expires_at`, or +infinity: an expired fence says nothing until the tick removes it.
    let expiresAt: Double
    /// `dwell_s` when `notify` has dwell, else NaN.
    let dwellSeconds: Double
    /// `speed_limit_kmh`, or NaN.
    let speedLimitKmh: Double

    init(_ fence: Fence) {
        geometry = fence.geometry
        marginCap = fence.marginCap
        expiresAt = fence.definition.expiresAt ?? .infinity
        dwellSeconds = fence.notify.contains(.dwell) ? fence.definition.dwellSeconds ?? .nan : .nan
        speedLimitKmh = fence.definition.speedLimitKmh ?? .nan
    }

    private init() {
        geometry = .circle(CircleGeometry(center: Coordinate(lat: 0, lon: 0), radius: 0))
        marginCap = 0
        expiresAt = -.infinity
        dwellSeconds = .nan
        speedLimitKmh = .nan
    }

    /// The probe of a free slot: nothing reaches it (the index holds no free slot), and it says
    /// nothing, as an expired fence.
    static let vacant = FenceProbe()
}
