import Foundation
import Testing
@testable import FleetFenceCodecs
import SeededRandom

@Suite("RFC 3339")
struct RFC3339Tests {
    @Test func formatsTheContractExample() {
        let t = RFC3339.parse("2026-11-22T10:00:05.500Z")!
        #expect(RFC3339.format(t) == "2026-11-22T10:00:05.500Z")
        #expect(RFC3339.format(t + 24.5) == "2026-11-22T10:00:30.000Z")
        #expect(RFC3339.format(0) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.format(1_795_600_000.5) == "2026-11-25T09:46:40.500Z")
    }

    @Test func parsesOffsetsAndFractions() {
        #expect(RFC3339.parse("1970-01-01T00:00:00Z") == 0)
        #expect(RFC3339.parse("1970-01-01T01:00:00+01:00") == 0)
        #expect(RFC3339.parse("1969-12-31T19:00:00-05:00") == 0)
        #expect(RFC3339.parse("1970-01-01T00:00:00.25Z") == 0.25)
        #expect(RFC3339.parse("1970-01-01t00:00:01.5z") == 1.5)
        #expect(RFC3339.parse("1970-01-01 00:00:01Z") == 1)
        #expect(RFC3339.parse("2026-11-22T10:00:05.123456789123456789Z") == RFC3339.parse("2026-11-22T10:00:05Z")! + 0.12345678912345678)
        #expect(RFC3339.parse("2024-02-29T00:00:00Z") != nil)
        #expect(RFC3339.parse("2016-12-31T23:59:60Z") == RFC3339.parse("2017-01-01T00:00:00Z"))
    }

    @Test(arguments: [
        "", "2026", "2026-11-22", "2026-11-22T10:00Z", "2026-11-22T10:00:05", "2026-11-22T10:00:05.Z",
        "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
        "2026-11-22T24:00:00Z", "2026-11-22T10:60:00Z", "2026-11-22T10:00:61Z", "2026-11-22T10:00:05+0100",
        "2026-11-22T10:00:05+24:00", "2026-11-22T10:00:05+01:60", "2026-11-22T10:00:05Zjunk", "2026-11-22X10:00:05Z",
        "+2026-11-22T10:00:05Z", "26-11-22T10:00:05Z", "2026-11-22T10:00:05.5.5Z", "2026-1-22T10:00:05Z",
        "２０２６-11-22T10:00:05Z", "2026-11-22T10:00:05 Z",
    ])
    func rejects(_ text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test func agreesWithFoundationOnRandomInstants() {
        var rng = SeededRandom(seed: 3339)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for _ in 0..<5000 {
            // From 1583: Foundation switches to the Julian calendar before the Gregorian reform; RFC 3339 does not.
            let millis = Int64.random(in: -12_212_553_600_000...253_402_300_799_999, using: &rng)
            let t = Double(millis) / 1000
            let text = RFC3339.format(t)
            #expect(text == iso.string(from: Date(timeIntervalSince1970: t)), "\(millis)")
            #expect(RFC3339.parse(text).map { ($0 * 1000).rounded() } == Double(millis))
        }
    }

    @Test func roundsToTheNearestMillisecond() {
        #expect(RFC3339.format(0.0004) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.format(0.0006) == "1970-01-01T00:00:00.001Z")
        #expect(RFC3339.format(59.9996) == "1970-01-01T00:01:00.000Z")
        #expect(RFC3339.format(-0.001) == "1969-12-31T23:59:59.999Z")
    }

    @Test func clampsWhatCannotBeWritten() {
        #expect(RFC3339.format(.nan) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.format(.infinity) == "9999-12-31T23:59:59.999Z")
        #expect(RFC3339.format(-.infinity) == "0000-01-01T00:00:00.000Z")
        #expect(RFC3339.format(RFC3339.maxSeconds) == "9999-12-31T23:59:59.999Z")
        #expect(RFC3339.format(RFC3339.minSeconds) == "0000-01-01T00:00:00.000Z")
        #expect(RFC3339.parse("9999-12-31T23:59:59.999Z") == RFC3339.maxSeconds)
    }

    @Test func appendWritesTheSameText() {
        var bytes = Array("x".utf8)
        RFC3339.append(1_795_600_005.5, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "x" + RFC3339.format(1_795_600_005.5))
    }

    @Test func civilDateRoundTrips() {
        for days in stride(from: -800_000, through: 3_000_000, by: 97) {
            let (y, m, d) = CivilDate.date(days: days)
            #expect(CivilDate.days(year: y, month: m, day: d) == days)
            #expect(d >= 1 && d <= CivilDate.daysInMonth(year: y, month: m))
        }
    }
}
