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

    @Test func fencesFileHasTheSampleFences() {
        #expect(fences.count == 8)
        let gate = fences.first { $0.id == "gatehouse" }
        #expect(gate?.radius == 20)
        #expect(gate?.isClamped == true)
        #expect(fences.first { $0.id == "wdf01" }?.name == "SAP SE WDF01")
        #expect(fences.first { $0.id == "wdf-depot" }?.notify == [.enter, .exit, .dwell])
        #expect(fences.filter { $0.radius == nil }.map(\.id).sorted() == ["parking-p7", "rail-yard"])
    }

    @Test func everyRouteCrossesCleanlyExceptTheGraze() {
        let device = Dictionary(uniqueKeysWithValues: routes.enumerated().map { (GPXParser.stem($1.source), "truck-\($0 + 1)") })
        for reverse in [false, true] {
            let plan = plan { $0.reverse = reverse; $0.seed = 3 }
            let truth = GroundTruth.expectedAlerts(plan: plan, fences: fences, rules: GroundTruthRules())
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
            let graze = device["parking-graze-untimed"]!
            #expect(events(truth, device: graze).isEmpty)
            #expect(!events(truth, device: graze, .ambiguous).isEmpty)
            #expect(truth.filter { $0.certainty == .ambiguous }.allSatisfy { $0.device == graze && $0.fence == "parking-p7" })
        }
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
