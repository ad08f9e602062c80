import GeofenceEngine
import Testing

@testable import FleetFenceService

/// A fold of the clock log handed over a second at a time (docs/operations.md "Journal"): the
/// writer deletes the log's rows once the slice marked last is written, so a slice marked last
/// too early would delete clocks the later slices had not folded yet.
@Suite("Clock fold")
struct ClockFoldTests {
    private func handOver(_ count: Int, slice: Int = 500) -> (seconds: [[ClockFold.Part]], ids: [ExactID]) {
        let ids = (0..<count).map { ExactID("truck-\($0)") }
        var fold = ClockFold(ids.shuffled(), slice: slice)
        var seconds: [[ClockFold.Part]] = []
        while !fold.isHandedOver { seconds.append(fold.nextSecond()) }
        return (seconds, ids.sortedByID())
    }

    /// Every device once, in the journal's order; the first slice alone marked first and the last
    /// alone marked last; at least 5,000 devices a second.
    @Test func everyDeviceOnceWithOneFirstAndOneLastSlice() {
        let (seconds, ids) = handOver(12_001)
        #expect(seconds.map { $0.reduce(0) { $0 + $1.devices.count } } == [5_000, 5_000, 2_001])
        let parts = seconds.flatMap { $0 }
        #expect(parts.count == 25)
        #expect(parts.flatMap { Array($0.devices) } == ids)
        #expect(parts.map(\.first) == [true] + Array(repeating: false, count: 24))
        #expect(parts.map(\.last) == Array(repeating: false, count: 24) + [true])
        #expect(parts.allSatisfy { $0.devices.count <= 500 })
    }

    /// A large fold goes over 30 seconds at most; a fold of one device is one slice, both first and
    /// last.
    @Test func aLargeFoldTakesHalfAMinuteAndASmallOneASlice() {
        let (large, _) = handOver(300_000)
        #expect(large.count == 30)
        let (small, _) = handOver(1)
        #expect(small.count == 1 && small[0].count == 1)
        #expect(small[0][0].first && small[0][0].last)
    }
}
