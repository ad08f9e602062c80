import GeofenceEngine

/// Ground truth for one device on one tour (docs/rules.md "Tours"), from the enters the service may
/// confirm at the tour's stops.
///
/// A stop is visited by a confirmed enter into its fence, in the order of the crossings. Ordered:
/// entering the next stop visits it; entering a later one first skips each stop passed over
/// (`stop_skipped`, before that stop's `stop_visited`); entering a stop already visited or
/// skipped in the round does nothing. Unordered: the first enter into each stop of the round
/// visits it. The round's last visit is followed by `tour_completed`, with `duration_s` from the
/// round's first visit; after it, an enter into the first stop (ordered) or into any stop
/// (unordered, whose stops have no first) starts the next round. Every event's `at` is the
/// visiting enter's crossing.
///
/// An ambiguous enter may or may not be a visit: the tour is played out both ways for each (up
/// to `maxUncertainVisits` of them), and an event that every way gives is expected, one only
/// some give ambiguous.
struct TourTruth {
    var tour: TourDefinition
    var device: String
    /// The device's enters (expected and ambiguous) at every fence; those at the tour's stops count.
    var enters: [ExpectedAlert]

    static let maxUncertainVisits = 10

    private struct Event {
        var key: Key
        var duration: ClosedRange<Double>?
    }

    /// One event: the visit that raised it, its kind and the stop it names. Ordered as the
    /// service sends them: per visit, the stops passed over, the visit, then the completion.
    private struct Key: Hashable, Comparable {
        var visit: Int
        var event: AlertEvent
        var stop: Int
        private var rank: Int { event == .stopSkipped ? 0 : event == .stopVisited ? 1 : 2 }
        static func < (a: Key, b: Key) -> Bool { (a.visit, a.rank, a.stop) < (b.visit, b.rank, b.stop) }
    }

    func alerts() -> [ExpectedAlert] {
        let stops = Set(tour.stops)
        let visits = enters.filter { stops.contains($0.fence) }.sorted { ($0.at, $0.fence) < ($1.at, $1.fence) }
        let uncertain = visits.indices.filter { visits[$0].certainty != .expected }
        // Each way of taking the uncertain visits; with many, only all and none, and everything
        // from the first uncertain one on is ambiguous.
        var ways: [Set<Int>] = []
        if uncertain.count <= Self.maxUncertainVisits {
            for mask in 0..<(1 << uncertain.count) {
                ways.append(Set(uncertain.indices.filter { mask & (1 << $0) != 0 }.map { uncertain[$0] }))
            }
        } else {
            ways = [Set(uncertain), []]
        }
        let firstUncertain = uncertain.first ?? visits.count

        var seen: [Key: (count: Int, duration: ClosedRange<Double>?)] = [:]
        for taken in ways {
            let chosen = visits.indices.filter { visits[$0].certainty == .expected || taken.contains($0) }
            for event in play(chosen, visits) {
                var entry = seen[event.key] ?? (0, nil)
                entry.count += 1
                if let duration = event.duration {
                    entry.duration = entry.duration.map {
                        min($0.lowerBound, duration.lowerBound)...max($0.upperBound, duration.upperBound)
                    } ?? duration
                }
                seen[event.key] = entry
            }
        }

        return seen.keys.sorted().map { key in
            let visit = visits[key.visit]
            let entry = seen[key]!
            let certain = entry.count == ways.count
                && (uncertain.count <= Self.maxUncertainVisits || key.visit < firstUncertain)
            return ExpectedAlert(
                device: device, fence: tour.stops[key.stop], event: key.event, at: visit.at, due: visit.due,
                certainty: certain ? .expected : .ambiguous, note: certain ? nil : "after an ambiguous enter at a stop",
                atWindow: visit.atWindow, tour: tour.id, stopIndex: key.stop, duration: entry.duration)
        }
    }

    /// The events of one way of taking the visits (`chosen`: indices into `visits`, in order).
    private func play(_ chosen: [Int], _ visits: [ExpectedAlert]) -> [Event] {
        let count = tour.stops.count
        var visited = Set<Int>()
        var next = 0
        var complete = false
        var first: ExpectedAlert?
        var events: [Event] = []
        for v in chosen {
            let visit = visits[v]
            func emit(_ event: AlertEvent, _ stop: Int, duration: ClosedRange<Double>? = nil) {
                events.append(Event(key: Key(visit: v, event: event, stop: stop), duration: duration))
            }
            if complete {
                guard !tour.ordered || visit.fence == tour.stops[0] else { continue }
                complete = false
                visited = []
                next = 0
                first = nil
            }
            let stop: Int?
            if tour.ordered {
                stop = (next..<count).first { tour.stops[$0] == visit.fence }
                if let stop {
                    for skipped in next..<stop { emit(.stopSkipped, skipped) }
                    next = stop + 1
                }
            } else {
                stop = (0..<count).first { tour.stops[$0] == visit.fence && !visited.contains($0) }
            }
            guard let stop else { continue }
            visited.insert(stop)
            emit(.stopVisited, stop)
            let start = first ?? visit
            first = start
            if tour.ordered ? next == count : visited.count == count {
                // Both crossings may be reported anywhere in their windows.
                let duration = (visit.atWindow.lowerBound - start.atWindow.upperBound)...(visit.atWindow.upperBound - start.atWindow.lowerBound)
                emit(.tourCompleted, stop, duration: max(0, duration.lowerBound)...max(0, duration.upperBound))
                complete = true
            }
        }
        return events
    }
}
