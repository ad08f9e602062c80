import CMalloc
import GeofenceEngine

/// Allocations of a megabyte or more get pages of their own, given back to the kernel when freed.
/// glibc raises that threshold each time such a block is freed (up to 32 MB), so the service's
/// large arrays, grown by doubling, and the buffers of a burst of first sightings ended in the heap,
/// where freed they stayed resident: fleetbench's scale phase, a million devices, was 423-443 MB
/// resident with 58-90 MB of the heap free (`mallinfo2`); with the threshold fixed at 1 MB, 384-391
/// MB (at 256 kB no better), and 717-719 MB against 766-795 once each device held a sample (three
/// runs each, alternating; the paragraph "Large allocations mapped on their own" in docs/performance.md).
enum LargeAllocations {
    static func mapOnTheirOwn() { fleetfence_map_allocations_from(Int32(AllocatedBytes.mappedFrom)) }
}
