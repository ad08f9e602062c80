/// The part of a fence the sample hot path reads: its geometry, margin cap and expiry, and what
/// an inside sample needs (dwell, speed limit), small enough to copy without touching the
/// definition's strings. The full fence is fetched only when something is alerted.
struct FenceProbe: Sendable {
    let geometry: Fence.Geometry
    let marginCap: Double
    /// `expires_at`, or +infinity: an expired fence says nothing until the tick removes it.
    let expiresAt: Double
    /// `dwell_s`, when `notify` has dwell.
    let dwellSeconds: Double?
    let speedLimitKmh: Double?

    init(_ fence: Fence) {
        geometry = fence.geometry
        marginCap = fence.marginCap
        expiresAt = fence.definition.expiresAt ?? .infinity
        dwellSeconds = fence.notify.contains(.dwell) ? fence.definition.dwellSeconds : nil
        speedLimitKmh = fence.definition.speedLimitKmh
    }
}
