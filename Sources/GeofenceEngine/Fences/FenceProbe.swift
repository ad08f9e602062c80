/// The part of a fence the sample hot path reads: its geometry, margin cap and expiry, small
/// enough to copy without touching the definition's strings.
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
}
