/// Every truck's positions merged in time order (a binary heap of each truck's next one), so
/// that 10,000 trucks cost O(log n) per position rather than a scan per tick.
public struct FleetSchedule: Sendable {
    private var samplers: [TruckSampler]
    /// (due time, truck), a min-heap on time then truck.
    private var heap: [(time: Double, truck: Int)] = []

    public init(plan: FleetPlan) {
        samplers = plan.trucks.indices.map { TruckSampler(plan: plan, truck: $0) }
        for (truck, sampler) in samplers.enumerated() {
            if let time = sampler.nextTime { push((time, truck)) }
        }
    }

    /// Trucks that still have positions to send.
    public var activeTrucks: Int { heap.count }
    /// When the next position is due.
    public var nextTime: Double? { heap.first?.time }

    /// The next position if it is due at or before `time`.
    public mutating func next(through time: Double) -> TruckSample? {
        guard let top = heap.first, top.time <= time else { return nil }
        let sample = samplers[top.truck].next()
        if let due = samplers[top.truck].nextTime {
            heap[0] = (due, top.truck)
            siftDown(0)
        } else {
            let last = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = last
                siftDown(0)
            }
        }
        return sample
    }

    private static func less(_ a: (time: Double, truck: Int), _ b: (time: Double, truck: Int)) -> Bool {
        a.time < b.time || (a.time == b.time && a.truck < b.truck)
    }

    private mutating func push(_ entry: (time: Double, truck: Int)) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.less(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, Self.less(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count, Self.less(heap[right], heap[smallest]) { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
