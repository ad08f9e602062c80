import Foundation
import Testing

@testable import GeofenceEngine

/// docs/rules.md "The rules", `speed_limit_kmh`: one `speeding` alert per episode of samples over the limit
/// lasting `debounce_s` (20 s here) inside the fence.
@Suite("Speeding")
struct SpeedingTests {
    /// 30 km/h is 8.33 m/s.
    private func zone(limit: Double = 30) -> FenceDefinition {
        var fence = circle("school", radius: 300, name: "School")
        fence.speedLimitKmh = limit
        return fence
    }

    /// A device first seen parked in the middle, then samples every 5 s near the centre with these
    /// speeds (m/s; nil: none sent).
    private func run(_ speeds: [Double?], from start: Double = T0 + 5, _ h: inout Harness) -> [Transition] {
        var out: [Transition] = []
        for (k, speed) in speeds.enumerated() {
            out += h.feed([at(Double(k % 5) * 10, t: start + 5 * Double(k), speed: speed)])
        }
        return out
    }

    private func parked(_ definition: FenceDefinition) throws -> Harness {
        var h = try Harness([definition])
        h.feed([at(0, t: T0, speed: 0)])
        #expect(h.engine.state(of: "truck-7", in: definition.id) == .inside)
        return h
    }

    @Test func anEpisodeIsAlertedOnceWhenItHasLastedTheDebounce() throws {
        var h = try parked(zone())
        let alerts = run([9, 10, 11, 12, 13, 20, 20, 20, 20], &h)
        #expect(alerts.count == 1)
        let alert = try #require(alerts.first)
        #expect(alert.event == .speeding && alert.fenceID == "school" && alert.fenceName == "School")
        #expect(alert.at == T0 + 5, "the episode's first sample over the limit")
        #expect(alert.confirmedAt == T0 + 25)
        #expect(abs(try #require(alert.maxSpeedKmh) - 13 * 3.6) < 1e-9, "the highest speed up to the confirmation")
        #expect(alert.limitKmh == 30 && alert.radiusMeters == 300 && alert.seq == 1)
        #expect(h.engine.speeding(of: "truck-7", in: "school")?.alerted == true)
    }

    @Test func aSampleAtOrUnderTheLimitCancelsTheRun() throws {
        var h = try parked(zone())
        // +5 ... +15 over, +20 exactly at 30 km/h, then over from +25: confirmed at +45.
        let alerts = run([9, 9, 9, 30 / 3.6, 9, 9, 9, 9, 9], &h)
        #expect(alerts.map(\.at) == [T0 + 25])
        #expect(alerts.map(\.confirmedAt) == [T0 + 45])
    }

    @Test func samplesWithoutASpeedSayNothing() throws {
        var h = try parked(zone())
        let alerts = run([9, nil, nil, nil, 9], &h)
        #expect(alerts.map(\.confirmedAt) == [T0 + 25])
        // Negative and NaN speeds are no speed at all.
        #expect(PositionSample(lat: 0, lon: 0, timestamp: 0, speed: -1).speed == nil)
        #expect(PositionSample(lat: 0, lon: 0, timestamp: 0, speed: .nan).speed == nil)
    }

    @Test func anEpisodeEndsAfterTheDebounceAtOrUnderTheLimitAndANewOneIsAlertedAgain() throws {
        var h = try parked(zone())
        // Over +5...+30 (alert at +25); calm +35 ... +50 is short of 20 s, over at +55 keeps the
        // episode; calm +60 ... +80 ends it; over again from +85: a second alert at +105.
        let speeds: [Double?] = [9, 9, 9, 9, 9, 9, 5, 5, 5, 5, 9, 5, 5, 5, 5, 5, 9, 9, 9, 9, 9]
        let alerts = run(speeds, &h)
        #expect(alerts.map(\.at) == [T0 + 5, T0 + 85])
        #expect(alerts.map(\.confirmedAt) == [T0 + 25, T0 + 105])
        #expect(alerts.map(\.seq) == [1, 2])
    }

    @Test func leavingEndsTheEpisode() throws {
        var h = try parked(zone())
        #expect(run([9, 9, 9, 9, 9], &h).count == 1)
        // Out to the east at speed, and in again: the exit ends the episode, speeding inside again
        // is a new one.
        let out = eastWest((1...14).map { 100 + Double($0) * 40 }, from: T0 + 30).map {
            PositionSample(lat: $0.lat, lon: $0.lon, timestamp: $0.timestamp, speed: 9)
        }
        h.feed(out)
        #expect(events(h.alerts) == ["speeding school", "exit school"])
        #expect(h.engine.speeding(of: "truck-7", in: "school") == nil)
        let back = eastWest((0..<14).map { 660 - Double($0) * 50 }, from: T0 + 200).map {
            PositionSample(lat: $0.lat, lon: $0.lon, timestamp: $0.timestamp, speed: 9)
        }
        h.feed(back)
        h.feed((0..<6).map { at(0, t: T0 + 270 + 5 * Double($0), speed: 9) })
        #expect(events(h.alerts) == ["speeding school", "exit school", "enter school", "speeding school"])
        let second = h.alerts[3]
        #expect(second.at >= h.alerts[2].confirmedAt, "the run starts inside, with the enter's confirmation")
    }

    @Test func speedOutsideTheFenceIsNotSpeeding() throws {
        var h = try Harness([zone()])
        h.feed((0..<20).map { at(1_000, Double($0) * 10, t: T0 + 5 * Double($0), speed: 30) })
        #expect(h.alerts.isEmpty)
        #expect(h.engine.speeding(of: "truck-7", in: "school") == nil)
    }

    @Test func aReplaceWithoutALimitEndsTheEpisode() throws {
        var h = try parked(zone())
        _ = run([9, 9], &h)
        #expect(h.engine.speeding(of: "truck-7", in: "school") != nil)
        try h.engine.setFence(circle("school", radius: 300, name: "School"))
        _ = run([9, 9, 9, 9, 9, 9], from: T0 + 20, &h)
        #expect(h.alerts.isEmpty)
        #expect(h.engine.speeding(of: "truck-7", in: "school") == nil)
    }

    @Test(arguments: [false, true])
    func anEpisodeSurvivesARestore(afterTheAlert: Bool) throws {
        var h = try parked(zone())
        let before = run(afterTheAlert ? [9, 9, 9, 9, 9] : [9, 9, 9], &h)
        let json = try JSONEncoder().encode(h.engine.snapshot())
        var restored = Harness(engine: GeofenceEngine(settings: GeofenceSettings(), restoring: try JSONDecoder().decode(EngineSnapshot.self, from: json)))
        let after = run([9, 9, 9, 9], from: T0 + 5 + 5 * Double(before.isEmpty ? 3 : 5), &restored)
        let all = before + after
        #expect(all.count == 1, "one alert, never repeated")
        #expect(all.first?.at == T0 + 5 && all.first?.confirmedAt == T0 + 25)
    }
}
