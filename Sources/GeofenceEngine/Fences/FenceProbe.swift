/// The part of a fence the sample hot path reads: its geometry and margin cap, small enough to
/// copy without touching the definition's strings.
struct FenceProbe: Sendable {
    let geometry: Fence.Geometry
    let marginCap: Double

    init(_ fence: Fence) {
        geometry = fence.geometry
        marginCap = fence.marginCap
    }
}
