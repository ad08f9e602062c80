/// The part of a fence the sample hot path reads for every candidate: its geometry, margin cap
/// and expiry, 56 bytes, without touching the definition's strings. The full fence is fetched
/// only when something is alerted.
struct FenceProbe: Sendable {
    let geometry: Fence.Geometry
    let marginCap: Double
    /// `expires_at`, or +infinity: an expired fence says nothing until the tick removes it.
    let expiresAt: Double

    init(_ fence: Fence) {
        geometry = fence.geometry
        marginCap = fence.marginCap
        expiresAt = fence.definition.expiresAt ?? .infinity
    }

    private init(geometry: Fence.Geometry, marginCap: Double, expiresAt: Double) {
        self.geometry = geometry
        self.marginCap = marginCap
        self.expiresAt = expiresAt
    }

    /// The probe of a free slot: nothing reaches it (the index holds no free slot), and it says
    /// nothing, as an expired fence.
    static let vacant = FenceProbe(
        geometry: .circle(CircleGeometry(center: Coordinate(lat: 0, lon: 0), radius: 0)), marginCap: 0, expiresAt: -.infinity)
}

/// What a sample inside a fence also reads: its dwell and its speed limit.
struct FenceRules: Sendable {
    /// `dwell_s`, when `notify` has dwell.
    let dwellSeconds: Double?
    let speedLimitKmh: Double?

    init(_ fence: Fence) {
        dwellSeconds = fence.notify.contains(.dwell) ? fence.definition.dwellSeconds : nil
        speedLimitKmh = fence.definition.speedLimitKmh
    }

    init() {
        dwellSeconds = nil
        speedLimitKmh = nil
    }
}
