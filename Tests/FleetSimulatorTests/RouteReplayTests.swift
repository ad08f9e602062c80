import Foundation
import GeofenceEngine
import Testing
@testable import FleetSimulator

@Suite("Route replay")
struct RouteReplayTests {
    /// Two legs: 0 -> 10 s moving, 10 -> 40 s stopped, 40 -> 50 s moving on.
    func timedRoute() -> GPXRoute {
        let a = Fixtures.point(north: 0, east: 0), b = Fixtures.point(north: 0, east: 100)
        let c = Fixtures.point(north: 100, east: 100)
        return GPXRoute(name: "timed", points: [
            RoutePoint(lat: a.lat, lon: a.lon, time: 1000),
            RoutePoint(lat: b.lat, lon: b.lon, time: 1010),
            RoutePoint(lat: b.lat, lon: b.lon, time: 1040),
            RoutePoint(lat: c.lat, lon: c.lon, time: 1050),
        ], kind: .track)
    }

    @Test func timedRouteFollowsItsOwnPacing() {
        let replay = RouteReplay(route: timedRoute(), speedKmh: 500)  // speed ignored: the route has times
        #expect(replay.duration == 50)
        let half = replay.state(at: 5)
        #expect(abs(Earth.distance(half.coordinate, Fixtures.point(north: 0, east: 50))) < 0.01)
        #expect(abs(half.speed - 10) < 0.01)
        #expect(abs(half.heading - 90) < 0.1)
        // Stopped: still at the corner, speed 0, heading kept from the arrival.
        let stopped = replay.state(at: 25)
        #expect(Earth.distance(stopped.coordinate, Fixtures.point(north: 0, east: 100)) < 0.01)
        #expect(stopped.speed == 0)
        #expect(abs(stopped.heading - 90) < 0.1)
        let last = replay.state(at: 45)
        #expect(Earth.distance(last.coordinate, Fixtures.point(north: 50, east: 100)) < 0.01)
        #expect(abs(last.heading) < 0.1 || abs(last.heading - 360) < 0.1)
        // Clamped at both ends.
        #expect(Earth.distance(replay.state(at: -5).coordinate, Fixtures.point(north: 0, east: 0)) < 0.01)
        #expect(Earth.distance(replay.state(at: 99).coordinate, Fixtures.point(north: 100, east: 100)) < 0.01)
    }

    @Test func untimedRouteDrivesAtConstantSpeed() {
        let route = Fixtures.straightRoute([0, 300, 1000])
        let replay = RouteReplay(route: route, speedKmh: 36)  // 10 m/s
        #expect(abs(replay.length - 1000) < 0.5)
        #expect(abs(replay.duration - 100) < 0.05)
        for t in [0.0, 12.5, 30, 64, 100] {
            let travelled = Earth.distance(replay.state(at: t).coordinate, Fixtures.point(north: 0, east: 0))
            #expect(abs(travelled - 10 * t) < 0.5, "at \(t) s")
            #expect(abs(replay.state(at: t).speed - 10) < 0.01)
        }
    }

    @Test func reversedRouteMirrorsTimeAndPauses() {
        let forward = RouteReplay(route: timedRoute())
        let backward = RouteReplay(route: timedRoute(), reversed: true)
        #expect(backward.duration == forward.duration)
        for t in stride(from: 0.0, through: 50, by: 2.5) {
            let a = forward.state(at: t).coordinate, b = backward.state(at: 50 - t).coordinate
            #expect(Earth.distance(a, b) < 0.01, "at \(t) s")
        }
        // The stop (10...40 s forwards) is at 10...40 s backwards too, heading south-to-west.
        #expect(backward.state(at: 20).speed == 0)
        #expect(abs(backward.state(at: 5).heading - 180) < 0.1)
    }

    @Test func singlePointRouteStandsStill() {
        let c = Fixtures.point(north: 10, east: 10)
        let replay = RouteReplay(route: GPXRoute(name: "p", points: [RoutePoint(lat: c.lat, lon: c.lon)], kind: .waypoints))
        #expect(replay.duration == 0)
        #expect(replay.state(at: 100).coordinate == c)
        #expect(replay.state(at: 100).speed == 0)
    }
}
