import Foundation
import Testing

@testable import GeofenceEngine

/// docs/rules.md "Tours": stops visited by confirmed enters, skipped stops, completion, rounds, and the
/// progress kept in each device's state.
@Suite("Tours")
struct TourTests {
    /// Three depots 2 km apart on the east-west line through `depot`: a at 0, b at 2 km, c at 4 km.
    private let stops: [FenceDefinition] = [
        circle("a", at: local(depot, x: 0, y: 0), radius: 200, name: "A"),
        circle("b", at: local(depot, x: 2_000, y: 0), radius: 200, name: "B"),
        circle("c", at: local(depot, x: 4_000, y: 0), radius: 200, name: "C"),
    ]

    /// Driving east at 10 m/s from `from` to `to` metres, a sample every 5 s.
    private func drive(_ from: Double, _ to: Double, at start: Double = T0) -> [PositionSample] {
        let step = from < to ? 50.0 : -50.0
        return eastWest(Array(stride(from: from, through: to, by: step)), from: start)
    }

    private func tourEvents(_ alerts: [Transition]) -> [String] {
        alerts.filter(\.event.isTourEvent).map { "\($0.event.rawValue) \($0.fenceID)" }
    }

    private func harness(_ tours: [TourDefinition], fences: [FenceDefinition]? = nil) throws -> Harness {
        var h = try Harness(fences ?? stops)
        for tour in tours { try h.engine.setTour(tour) }
        return h
    }

    @Test func anOrderedTourVisitedInOrder() throws {
        var h = try harness([TourDefinition(id: "route", stops: ["a", "b", "c"])])
        h.feed(drive(-600, 4_600))
        #expect(h.alerts.map { "\($0.event.rawValue) \($0.fenceID)" } == [
            "enter a", "stop_visited a", "exit a", "enter b", "stop_visited b", "exit b", "enter c", "stop_visited c",
            "tour_completed c", "exit c",
        ])
        #expect(h.alerts.map(\.seq) == Array(1...10), "one sequence for fence alerts and tour events")
        let enters = h.alerts.filter { $0.event == .enter }
        let visits = h.alerts.filter { $0.event == .stopVisited }
        #expect(visits.map(\.at) == enters.map(\.at), "a visit is at its enter's crossing")
        #expect(visits.map(\.confirmedAt) == enters.map(\.confirmedAt))
        #expect(visits.map(\.stopIndex) == [0, 1, 2] && visits.allSatisfy { $0.tourID == "route" })
        let completed = try #require(h.alerts.first { $0.event == .tourCompleted })
        #expect(completed.stopIndex == 2 && completed.at == enters[2].at)
        #expect(completed.durationSeconds == enters[2].at - enters[0].at)
        let progress = try #require(h.engine.progress(device: "truck-7", tour: "route"))
        #expect(progress.round == 1 && progress.visited.map(\.stop) == ["a", "b", "c"] && progress.skipped.isEmpty)
        #expect(progress.nextStop == "a", "after completion the first stop starts the next round")
    }

    @Test func aLaterStopEnteredFirstSkipsTheStopsBetween() throws {
        var h = try harness([TourDefinition(id: "route", stops: ["a", "b", "c"])])
        // Visit a, then jump to c (driving around b, 1 km north of it).
        h.feed(drive(-600, 600))
        h.feed((0..<8).map { sample(local(depot, x: 2_000, y: 1_000 + Double($0)), t: T0 + 200 + 5 * Double($0)) })
        h.feed(drive(3_400, 4_600, at: T0 + 300))
        #expect(tourEvents(h.alerts) == ["stop_visited a", "stop_skipped b", "stop_visited c", "tour_completed c"])
        let skipped = try #require(h.alerts.first { $0.event == .stopSkipped })
        let visitedC = try #require(h.alerts.last { $0.event == .stopVisited })
        #expect(skipped.stopIndex == 1 && skipped.seq + 1 == visitedC.seq && skipped.at == visitedC.at)
        #expect(h.engine.progress(device: "truck-7", tour: "route")?.skipped == ["b"])
    }

    @Test func enteringALaterStopFirstOfAllSkipsTheEarlierOnes() throws {
        var h = try harness([TourDefinition(id: "route", stops: ["a", "b", "c"])])
        h.feed(drive(1_400, 2_600))
        #expect(tourEvents(h.alerts) == ["stop_skipped a", "stop_visited b"])
        let progress = try #require(h.engine.progress(device: "truck-7", tour: "route"))
        #expect(progress.skipped == ["a"] && progress.visited.map(\.stop) == ["b"] && progress.nextStop == "c")
    }

    @Test func anEarlierStopAgainSaysNothingAndRoundsStartAtTheFirstStop() throws {
        var h = try harness([TourDefinition(id: "route", stops: ["a", "b"])])
        h.feed(drive(-600, 600))
        h.feed(drive(600, -600, at: T0 + 200))  // back through a
        #expect(tourEvents(h.alerts) == ["stop_visited a"])
        h.feed(drive(1_400, 2_600, at: T0 + 400))
        #expect(tourEvents(h.alerts) == ["stop_visited a", "stop_visited b", "tour_completed b"])
        // Completed: b again says nothing, a starts round 2.
        h.feed(drive(2_600, 1_400, at: T0 + 600))
        #expect(tourEvents(h.alerts).count == 3)
        h.feed(drive(600, -600, at: T0 + 800))
        #expect(tourEvents(h.alerts) == ["stop_visited a", "stop_visited b", "tour_completed b", "stop_visited a"])
        let progress = try #require(h.engine.progress(device: "truck-7", tour: "route"))
        #expect(progress.round == 2 && progress.visited.map(\.stop) == ["a"] && progress.nextStop == "b")
    }

    @Test func anUnorderedTourTakesItsStopsInAnyOrder() throws {
        var h = try harness([TourDefinition(id: "crawl", stops: ["a", "b", "c"], ordered: false)])
        h.feed(drive(4_600, 1_400))  // c, then b
        #expect(tourEvents(h.alerts) == ["stop_visited c", "stop_visited b"])
        #expect(h.engine.progress(device: "truck-7", tour: "crawl")?.nextStop == "a")
        h.feed(drive(1_400, 1_600, at: T0 + 400))  // b again: nothing
        h.feed(drive(600, -600, at: T0 + 600))
        #expect(tourEvents(h.alerts) == ["stop_visited c", "stop_visited b", "stop_visited a", "tour_completed a"])
        let completed = try #require(h.alerts.last { $0.event == .tourCompleted })
        let first = try #require(h.alerts.first { $0.event == .stopVisited })
        #expect(completed.durationSeconds == completed.at - first.at)
        // Any stop starts the next round.
        h.feed(drive(3_400, 4_600, at: T0 + 900))
        #expect(tourEvents(h.alerts).last == "stop_visited c")
        #expect(h.engine.progress(device: "truck-7", tour: "crawl")?.round == 2)
    }

    @Test func enterIsAVisitEvenWhenNotAlerted() throws {
        let quiet = stops.map { var f = $0; f.notify = [.exit]; return f }
        var h = try harness([TourDefinition(id: "route", stops: ["a", "b"])], fences: quiet)
        h.feed(drive(-600, 2_600))
        #expect(h.alerts.map { "\($0.event.rawValue) \($0.fenceID)" } == [
            "stop_visited a", "exit a", "stop_visited b", "tour_completed b", "exit b",
        ])
        #expect(h.alerts.map(\.seq) == [1, 2, 3, 4, 5])
    }

    @Test func firstSightInsideIsNoVisit() throws {
        var h = try harness([TourDefinition(id: "route", stops: ["a", "b"])])
        h.feed([sample(depot, t: T0)])
        #expect(h.alerts.isEmpty && h.engine.progress(device: "truck-7", tour: "route") == nil)
    }

    @Test func aStopNamingAFenceThatDoesNotExistWaitsForIt() throws {
        var h = try harness([TourDefinition(id: "route", stops: ["a", "later"])], fences: [stops[0]])
        h.feed(drive(-600, 600))
        #expect(h.engine.progress(device: "truck-7", tour: "route")?.nextStop == "later")
        try h.engine.setFence(circle("later", at: local(depot, x: 2_000, y: 0), radius: 200))
        h.feed(drive(1_000, 2_600, at: T0 + 400))
        #expect(tourEvents(h.alerts) == ["stop_visited a", "stop_visited later", "tour_completed later"])
    }

    @Test func silenceConfirmsAnEnterAndItsVisit() throws {
        var h = try harness([TourDefinition(id: "route", stops: ["a", "b"])])
        h.feed(drive(-600, -100))
        let transitions = h.tick(T0 + 500)
        #expect(transitions.map { "\($0.event.rawValue) \($0.fenceID)" } == ["enter a", "stop_visited a"])
        #expect(transitions.map(\.seq) == [1, 2])
    }

    /// Two stops one inside the other, entered by the same sample: the outer one was crossed first,
    /// and the tour takes them in the order they were crossed, whatever their ids (taken in id
    /// order, "a-small" before "c-big", the outer one was skipped and then visited after the tour
    /// was completed).
    @Test(arguments: [("c-big", "a-small"), ("a-big", "c-small")])
    func stopsEnteredByOneSampleAreVisitedInCrossingOrder(big: String, small: String) throws {
        let fences = [circle(big, at: depot, radius: 200), circle(small, at: depot, radius: 100)]
        var h = try harness([TourDefinition(id: "route", stops: [big, small])], fences: fences)
        h.feed(eastWest([-300, 0, 0, 0], interval: 10))
        // Alerts of one sample in fence id order (docs/rules.md); the enters' crossings are not.
        let enters = h.alerts.filter { $0.event == .enter }
        #expect(enters.count == 2 && enters.first { $0.fenceID == big }!.at < enters.first { $0.fenceID == small }!.at)
        #expect(tourEvents(h.alerts) == ["stop_visited \(big)", "stop_visited \(small)", "tour_completed \(small)"])
        let progress = try #require(h.engine.progress(device: "truck-7", tour: "route"))
        #expect(progress.round == 1 && progress.skipped.isEmpty)
    }

    @Test func toursSharingAStopComeInTourIDOrder() throws {
        var h = try harness([
            TourDefinition(id: "zulu", stops: ["a"]), TourDefinition(id: "alpha", stops: ["b", "a"], ordered: false),
        ])
        h.feed(drive(-600, 600))
        #expect(h.alerts.map { "\($0.event.rawValue) \($0.tourID ?? $0.fenceID)" } == [
            "enter a", "stop_visited alpha", "stop_visited zulu", "tour_completed zulu", "exit a",
        ])
    }

    @Test func aTourIsOnlyForTheDevicesItNames() throws {
        var h = try harness([TourDefinition(id: "route", devices: ["truck-*"], stops: ["a"])])
        h.feed(drive(-600, 600), device: "van-1")
        h.feed(drive(-600, 600), device: "truck-1")
        #expect(h.alerts.filter(\.event.isTourEvent).map(\.device) == ["truck-1", "truck-1"])
    }

    @Test func replacingOrRemovingATourKeepsOrDropsProgress() throws {
        var h = try harness([TourDefinition(id: "route", stops: ["a", "b", "c"])])
        h.feed(drive(-600, 600), device: "truck-1")
        h.feed(drive(-600, 600), device: "van-1")
        // Same stops, a new name and audience: the vans' progress goes, the trucks' stays.
        let renamed = try h.engine.setTour(TourDefinition(id: "route", name: "Route", devices: ["truck-*"], stops: ["a", "b", "c"]))
        #expect(renamed.replaced && !renamed.unchanged && renamed.clearedProgress == ["van-1"])
        #expect(h.engine.progress(device: "truck-1", tour: "route")?.visited.map(\.stop) == ["a"])
        #expect(h.engine.progress(device: "van-1", tour: "route") == nil)
        #expect(try h.engine.setTour(TourDefinition(id: "route", name: "Route", devices: ["truck-*"], stops: ["a", "b", "c"])).unchanged)
        // Other stops: everyone starts over.
        let rerouted = try h.engine.setTour(TourDefinition(id: "route", devices: ["truck-*"], stops: ["c", "a"]))
        #expect(rerouted.clearedProgress == ["truck-1"])
        h.feed(drive(-600, 600, at: T0 + 500), device: "truck-1")
        #expect(h.engine.progress(device: "truck-1", tour: "route")?.skipped == ["c"])
        #expect(h.engine.removeTour(id: "route") == ["truck-1"])
        #expect(h.engine.removeTour(id: "route") == nil)
        #expect(h.engine.progress(device: "truck-1") == [])
    }

    @Test func badToursAreRefusedAndChangeNothing() throws {
        var h = try harness([TourDefinition(id: "route", stops: ["a"])])
        #expect(throws: TourError.noStops) { try h.engine.setTour(TourDefinition(id: "route", stops: [])) }
        #expect(throws: TourError.duplicateStop("a")) { try h.engine.setTour(TourDefinition(id: "route", stops: ["a", "b", "a"])) }
        #expect(throws: TourError.idTooLong(bytes: 300)) { try h.engine.setTour(TourDefinition(id: String(repeating: "r", count: 300), stops: ["a"])) }
        #expect(h.engine.tours == [TourDefinition(id: "route", stops: ["a"])])
    }

    /// A kill at any point between visits: the restored engine goes on as if never stopped.
    @Test(arguments: [30, 60, 90])
    func progressSurvivesARestoreMidTour(cut: Int) throws {
        let tours = [TourDefinition(id: "route", stops: ["a", "b", "c"])]
        let path = drive(-600, 4_600)
        var plain = try harness(tours)
        plain.feed(path)
        var h = try harness(tours)
        h.feed(Array(path[..<cut]))
        let json = try JSONEncoder().encode(h.engine.snapshot())
        var restored = Harness(engine: GeofenceEngine(settings: GeofenceSettings(), restoring: try JSONDecoder().decode(EngineSnapshot.self, from: json)))
        restored.feed(Array(path[cut...]))
        #expect(h.alerts + restored.alerts == plain.alerts)
        #expect(restored.engine.progress(device: "truck-7", tour: "route") == plain.engine.progress(device: "truck-7", tour: "route"))
    }

    @Test func theTrackerAlone() {
        let tour = TourDefinition(id: "t", stops: ["a", "b", "c", "d"])
        var progress: TourProgress?
        #expect(TourTracker.visit(&progress, tour: tour, stopIndex: 2, at: 10).map(\.event) == [.stopSkipped, .stopSkipped, .stopVisited])
        #expect(TourTracker.visit(&progress, tour: tour, stopIndex: 1, at: 20).isEmpty)
        #expect(TourTracker.visit(&progress, tour: tour, stopIndex: 3, at: 30)
            == [.init(event: .stopVisited, stopIndex: 3, durationSeconds: nil), .init(event: .tourCompleted, stopIndex: 3, durationSeconds: 20)])
        #expect(progress == TourProgress(tour: "t", round: 1, visited: [.init(stop: "c", at: 10), .init(stop: "d", at: 30)], skipped: ["a", "b"], completed: true))
        #expect(TourTracker.visit(&progress, tour: tour, stopIndex: 1, at: 40).isEmpty, "completed: only the first stop starts a round")
        #expect(TourTracker.visit(&progress, tour: tour, stopIndex: 0, at: 50).map(\.event) == [.stopVisited])
        #expect(progress?.round == 2 && progress?.skipped == [])
        let single = TourDefinition(id: "s", stops: ["x"])
        var one: TourProgress?
        #expect(TourTracker.visit(&one, tour: single, stopIndex: 0, at: 5).map(\.event) == [.stopVisited, .tourCompleted])
        #expect(TourTracker.visit(&one, tour: single, stopIndex: 0, at: 9).map(\.event) == [.stopVisited, .tourCompleted])
        #expect(one?.round == 2)
    }
}
