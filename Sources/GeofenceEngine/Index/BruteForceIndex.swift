/// The reference the grid is tested against: every fence, every time.
public struct BruteForceIndex: Sendable {
    private var reaches: [Int32: BoundingBox] = [:]

    public init() {}

    public mutating func insert(_ slot: Int32, reach: BoundingBox) { reaches[slot] = reach }
    public mutating func remove(_ slot: Int32) { reaches[slot] = nil }

    public func candidates(lat: Double, lon: Double, into result: inout [Int32]) {
        for (slot, reach) in reaches where reach.contains(lat: lat, lon: lon) { result.append(slot) }
    }
}
