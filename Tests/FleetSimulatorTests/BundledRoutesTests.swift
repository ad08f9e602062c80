import Foundation
import GeofenceEngine
import Testing
@testable import FleetSimulator

/// The bundled routes against the bundled fences: clean where they promise to be, and the
/// engine in-process agrees with ground truth on them.
@Suite("Bundled routes and fences")
struct BundledRoutesTests {
    let routes = Fixtures.bundledRoutes
    let fences = Fixtures.bundledFences

    func plan(_ change: (inout FleetOptions) -> Void = { _ in }) -> FleetPlan {
        var options = FleetOptions()
        options.trucks = routes.count
        options.stagger = 0
        change(&options)
        return FleetPlan(routes: routes, options: options)
    }

    func events(_ alerts: [ExpectedAlert], device: String, _ certainty: ExpectedAlert.Certainty = .expected) -> [String] {
        alerts.filter { $0.device == device && $0.certainty == certainty }.map { "\($0.fence) \($0.event.rawValue)" }
    }

    let tours = try! TourFile.load(contentsOf: Fixtures.packageRoot.appendingPathComponent("Config/tours.json"))

    @Test func fencesFileHasTheSampleFences() throws {
        #expect(fences.count == 15)
        let gate = fences.first { $0.id == "gatehouse" }
        #expect(gate?.radius == 20)
        #expect(gate?.isClamped == true)
        #expect(fences.first { $0.id == "wdf01" }?.name == "SAP SE WDF01")
        #expect(fences.first { $0.id == "wdf-depot" }?.notify == [.enter, .exit, .dwell])
        #expect(fences.filter { $0.radius == nil }.map(\.id).sorted()
            == ["b291-corridor", "parking-p7", "rail-yard", "research-campus", "school-zone"])
        #expect(fences.first { $0.id == "b291-corridor" }?.buffer == 50)
        #expect(fences.first { $0.id == "school-zone" }?.speedLimitKmh == 30)
        // The contractor lot is a hole: its middle is outside the campus, 100 m from its edges.
        let campus = try #require(fences.first { $0.id == "research-campus" })
        let lot = Geodesy.offset(Coordinate(lat: 49.293406, lon: 8.641362), north: 3550, east: -575)
        #expect(abs(campus.signedDistance(to: lot) + 100) < 0.5)
        let yard = try #require(fences.first { $0.id == "contractor-yard" })
        #expect(yard.applies(to: "truck-19") && !yard.applies(to: "truck-4"))
        #expect(tours.map(\.id) == ["deliveries"] && tours.first?.stops == ["dock-a", "dock-b", "dock-c"] && tours.first?.ordered == true)
    }

    @Test func everyRouteCrossesCleanlyExceptTheGraze() {
        let device = Dictionary(uniqueKeysWithValues: routes.enumerated().map { (GPXParser.stem($1.source), "truck-\($0 + 1)") })
        for reverse in [false, true] {
            let plan = plan { $0.reverse = reverse; $0.seed = 3 }
            let backwards = Set(plan.trucks.filter(\.reversed).map(\.device))
            let truth = GroundTruth.expectedAlerts(plan: plan, fences: fences, tours: tours, rules: GroundTruthRules())
            #expect(events(truth, device: device["campus-parking-timed"]!)
                .sorted() == ["parking-p7 enter", "parking-p7 exit", "wdf01 enter", "wdf01 exit"])
            #expect(events(truth, device: device["campus-waypoints"]!) == ["wdf01 enter", "wdf01 exit"])
            #expect(events(truth, device: device["depot-dwell-timed"]!) == ["wdf-depot enter", "wdf-depot dwell", "wdf-depot exit"])
            #expect(events(truth, device: device["gate-fuel-timed"]!).sorted()
                == ["fuel-south enter", "fuel-south exit", "gatehouse enter", "wdf01 enter", "wdf01 exit"])
            #expect(events(truth, device: device["rail-hub-route"]!).sorted()
                == ["hub-east enter", "hub-east exit", "rail-yard enter", "rail-yard exit"])
            #expect(events(truth, device: device["west-loop-untimed"]!).sorted()
                == ["logistics-west enter", "logistics-west exit", "wdf01 enter", "wdf01 exit"])

            // The fleet rules. The haul stays on its corridor to the end (driven backwards, it
            // starts there: first sight, then it leaves); its even truck is not the yard's.
            let haul = device["corridor-haul-timed"]!
            #expect(events(truth, device: haul) == [backwards.contains(haul) ? "b291-corridor exit" : "b291-corridor enter"])
            #expect(events(truth, device: device["corridor-detour-untimed"]!).sorted() == ["b291-corridor enter", "b291-corridor exit"])
            #expect(events(truth, device: device["north-campus-lot-timed"]!)
                == ["research-campus enter", "research-campus exit", "research-campus enter", "research-campus exit"])
            #expect(events(truth, device: device["speed-zone-fast-timed"]!) == ["school-zone enter", "school-zone speeding", "school-zone exit"])
            #expect(events(truth, device: device["speed-zone-slow-timed"]!) == ["school-zone enter", "school-zone exit"])
            let docks = { (stops: String) in stops.flatMap { ["dock-\($0) enter", "dock-\($0) exit"] } }
            let inOrder = device["delivery-in-order-timed"]!
            #expect(events(truth, device: inOrder).filter { $0.hasSuffix("enter") || $0.hasSuffix("exit") }.sorted() == docks("abc"))
            #expect(tourEvents(truth, device: inOrder) == (backwards.contains(inOrder)
                // Dock C first: A and B passed over, done; B then means nothing, A starts round 2.
                ? ["0 stop_skipped", "1 stop_skipped", "2 stop_visited", "2 tour_completed", "0 stop_visited"]
                : ["0 stop_visited", "1 stop_visited", "2 stop_visited", "2 tour_completed"]))
            let skip = device["delivery-skip-timed"]!
            #expect(events(truth, device: skip).filter { $0.hasSuffix("enter") || $0.hasSuffix("exit") }.sorted() == docks("ac"))
            #expect(tourEvents(truth, device: skip) == (backwards.contains(skip)
                ? ["0 stop_skipped", "1 stop_skipped", "2 stop_visited", "2 tour_completed", "0 stop_visited"]
                : ["0 stop_visited", "1 stop_skipped", "2 stop_visited", "2 tour_completed"]))
            let unfinished = device["delivery-unfinished-timed"]!
            #expect(tourEvents(truth, device: unfinished) == (backwards.contains(unfinished)
                ? ["0 stop_skipped", "1 stop_visited"]
                : ["0 stop_visited", "1 stop_visited"]))

            let graze = device["parking-graze-untimed"]!
            #expect(events(truth, device: graze).isEmpty)
            #expect(!events(truth, device: graze, .ambiguous).isEmpty)
            #expect(truth.filter { $0.certainty == .ambiguous }.allSatisfy { $0.device == graze && $0.fence == "parking-p7" })
        }
    }

    @Test func theContractorYardIsForOddTrucksOnly() {
        // Thirty trucks: the haul route's are truck-4 and truck-19.
        let truth = GroundTruth.expectedAlerts(plan: plan { $0.trucks = 30 }, fences: fences, tours: tours, rules: GroundTruthRules())
        let yard = truth.filter { $0.fence == "contractor-yard" }
        #expect(yard.map { "\($0.device) \($0.event.rawValue)" } == ["truck-19 enter", "truck-19 exit"])
        #expect(yard.allSatisfy { $0.certainty == .expected })
    }

    /// A device's tour events in order, as "stop_index event".
    func tourEvents(_ alerts: [ExpectedAlert], device: String) -> [String] {
        alerts.filter { $0.device == device && $0.tour != nil && $0.certainty == .expected }
            .map { "\($0.stopIndex!) \($0.event.rawValue)" }
    }

    @Test(arguments: [0.0, 3.0])
    func theEngineAgreesWithGroundTruth(noise: Double) {
        let report = Fixtures.engineReport(plan {
            $0.trucks = 70
            $0.noise = noise
            $0.reverse = true
            $0.stagger = 300
            $0.seed = 11
        })
        #expect(report.isClean, "\(report)")
        #expect(report.expected >= 70 * 3)
        #expect(report.matched == report.expected)
        // Confirmation comes a debounce (20 s) after the first evidence, a few seconds past the line.
        if let delays = report.delays {
            #expect(delays.median >= 20 && delays.max < 40, "\(report)")
        }
    }
}
