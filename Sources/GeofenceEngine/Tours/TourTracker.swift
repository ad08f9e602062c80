/// How one visit moves a device's progress through a tour (docs/rules.md "Tours"). Pure: the engine
/// turns the events into alerts.
///
/// A round starts with the first visit of any stop. In an ordered tour a visit of a stop after the
/// next one passes over the stops between (`stop_skipped` for each, before the visit's
/// `stop_visited`), and a visit of a stop already visited or passed over says nothing; in an
/// unordered tour any stop not yet visited this round counts. The round is complete when the last
/// stop (ordered) or every stop (unordered) has been visited; after that, a visit of the first stop
/// (ordered) or of any stop (unordered) starts the next round.
enum TourTracker {
    struct Event: Equatable {
        let event: AlertEvent
        let stopIndex: Int
        /// For `tour_completed`: seconds since the round's first visit.
        let durationSeconds: Double?
    }

    static func visit(_ progress: inout TourProgress?, tour: TourDefinition, stopIndex: Int, at: Double) -> [Event] {
        var current = progress ?? TourProgress(tour: tour.id, round: 1, visited: [], skipped: [], completed: false)
        if current.completed {
            guard !tour.ordered || stopIndex == 0 else { return [] }
            current = TourProgress(tour: tour.id, round: current.round + 1, visited: [], skipped: [], completed: false)
        }
        var events: [Event] = []
        let stop = tour.stops[stopIndex]
        if tour.ordered {
            let next = nextIndex(current, of: tour)
            guard stopIndex >= next else { return [] }
            for passed in next..<stopIndex {
                current.skipped.append(tour.stops[passed])
                events.append(Event(event: .stopSkipped, stopIndex: passed, durationSeconds: nil))
            }
        } else {
            guard !current.visited.contains(where: { ExactID($0.stop) == ExactID(stop) }) else { return [] }
        }
        current.visited.append(TourProgress.Visit(stop: stop, at: at))
        events.append(Event(event: .stopVisited, stopIndex: stopIndex, durationSeconds: nil))
        let done = tour.ordered ? stopIndex == tour.stops.count - 1 : current.visited.count == tour.stops.count
        if done {
            current.completed = true
            events.append(Event(event: .tourCompleted, stopIndex: stopIndex, durationSeconds: max(0, at - current.visited[0].at)))
        }
        progress = current
        return events
    }

    /// In an ordered tour, the stop after the last visited (0 before any).
    static func nextIndex(_ progress: TourProgress, of tour: TourDefinition) -> Int {
        guard let last = progress.visited.last,
            let index = tour.stops.firstIndex(where: { ExactID($0) == ExactID(last.stop) })
        else { return 0 }
        return index + 1
    }

    /// The stop expected next, as `TourProgressReport.nextStop` describes it.
    static func nextStop(_ progress: TourProgress, of tour: TourDefinition) -> String? {
        if progress.completed { return tour.stops.first }
        if tour.ordered {
            let next = nextIndex(progress, of: tour)
            return next < tour.stops.count ? tour.stops[next] : nil
        }
        let visited = Set(progress.visited.map { ExactID($0.stop) })
        return tour.stops.first { !visited.contains(ExactID($0)) }
    }
}
