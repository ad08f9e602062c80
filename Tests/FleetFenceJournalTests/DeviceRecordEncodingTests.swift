import Foundation
import GeofenceEngine
import Testing

@testable import FleetFenceJournal

@Suite("Device record encoding")
struct DeviceRecordEncodingTests {
    /// A record in every shape the engine makes must read back through Codable exactly.
    @Test func everyRecordReadsBackExactly() throws {
        var engine = GeofenceEngine(settings: GeofenceSettings(debounceSeconds: 5))
        let centre = Coordinate(lat: 49.293406, lon: 8.641362)
        try engine.setFence(FenceDefinition(
            id: "f", name: "Fence \"ü\"", shape: .circle(center: centre, radius: 120), notify: [.enter, .exit, .dwell],
            dwellSeconds: 30))
        /// `north` metres north of the centre: the boundary is at 120, the evidence band 110...130.
        func feed(_ device: String, _ samples: [(north: Double, t: Double, acc: Double?)]) {
            var transitions: [Transition] = []
            for s in samples {
                let sample = PositionSample(
                    lat: centre.lat + s.north / 111_195, lon: centre.lon, timestamp: 1_795_600_000.25 + s.t, accuracy: s.acc)
                engine.process(device: device, sample: sample, arrival: s.t + 0.5, into: &transitions)
            }
        }
        feed("inside", [(0, 0, nil)])
        feed("dwelled", [(0, 0, 8), (10, 40, 8)])
        feed("pending \"evidence\"", [(300, 0, nil), (50, 3, 7.5)])
        feed("pending-in-band", [(300, 0, nil), (115, 3, nil)])
        feed("unknown", [(125, 0, nil)])
        feed("outside", [(300, 0, nil)])
        feed("inaccurate-only", [(0, 0, 500)])

        var shapes = Set<String>()
        let devices = ["inside", "dwelled", "pending \"evidence\"", "pending-in-band", "unknown", "outside", "inaccurate-only"]
        for device in devices {
            let record = try #require(engine.deviceRecord(for: device))
            let bytes = DeviceRecordEncoding.encode(record)
            let decoded = try JSONDecoder().decode(DeviceRecord.self, from: Data(bytes))
            #expect(decoded == record, "\(String(decoding: bytes, as: UTF8.self))")
            // And back through the journal's own reader, from its bytes and from JSONEncoder's.
            #expect(try DeviceRecordEncoding.decode(bytes) == record)
            #expect(try DeviceRecordEncoding.decode(Array(JSONEncoder().encode(record))) == record)
            for region in record.regions {
                shapes.insert("\(region.state) dwell=\(region.dwellReported) pending=\(region.pending != nil) evidence=\(region.pending?.evidenceSince != nil)")
            }
        }
        #expect(shapes == [
            "inside dwell=false pending=false evidence=false", "inside dwell=true pending=false evidence=false",
            "outside dwell=false pending=true evidence=true", "outside dwell=false pending=true evidence=false",
            "unknown dwell=false pending=false evidence=false",
        ])
    }

    /// Speeding episodes, tour progress and the last arrival read back exactly too, and a record
    /// written before they existed reads as having none.
    @Test func fleetRuleStateReadsBackExactly() throws {
        let record = DeviceRecord(
            device: "truck-\u{00FC}", lastTimestamp: 1_795_600_000.25, anchorTime: 1_795_600_000.25, anchorLat: 49.2, anchorLon: 8.6,
            seq: 12, knownGeneration: 4, lastArrival: 1_795_600_001.5,
            regions: [
                DeviceRecord.Region(
                    fence: "school", state: .inside, enteredAt: 1_795_599_000, dwellReported: false, pending: nil,
                    speeding: SpeedingEpisode(since: 1_795_599_990.5, maxSpeed: 13.4, alerted: true, calmSince: 1_795_600_000)),
                DeviceRecord.Region(
                    fence: "lane", state: .inside, enteredAt: 1_795_599_100, dwellReported: true, pending: nil,
                    speeding: SpeedingEpisode(since: 1_795_599_995, maxSpeed: 9, alerted: false, calmSince: nil)),
            ],
            tours: [
                TourProgress(tour: "route", round: 3, visited: [.init(stop: "a", at: 1_795_590_000.125), .init(stop: "c", at: 1_795_595_000)], skipped: ["b"], completed: false),
                TourProgress(tour: "crawl", round: 1, visited: [.init(stop: "x", at: 1)], skipped: [], completed: true),
            ],
            lastHeard: 1_795_600_002)
        let bytes = DeviceRecordEncoding.encode(record)
        #expect(try DeviceRecordEncoding.decode(bytes) == record)
        #expect(try JSONDecoder().decode(DeviceRecord.self, from: Data(bytes)) == record)
        #expect(try DeviceRecordEncoding.decode(Array(JSONEncoder().encode(record))) == record)
        let old = #"{"device":"d","seq":3,"knownGeneration":2,"regions":[{"fence":"f","state":"inside","enteredAt":5,"dwellReported":false}]}"#
        let decoded = try DeviceRecordEncoding.decode(Array(old.utf8))
        #expect(decoded.tours.isEmpty && decoded.lastHeard == nil && decoded.regions.first?.speeding == nil)
        #expect(try JSONDecoder().decode(DeviceRecord.self, from: Data(old.utf8)) == decoded)
        let damaged = #"{"device":"d","seq":3,"knownGeneration":2,"regions":[],"tours":[{"tour":"t","round":1.5,"visited":[],"skipped":[],"completed":false}]}"#
        #expect(throws: UnreadableRecord.self) { try DeviceRecordEncoding.decode(Array(damaged.utf8)) }
    }

    @Test func damagedRecordsAreRefusedWithAReason() {
        let good = #"{"device":"d","seq":3,"knownGeneration":2,"regions":[{"fence":"f","state":"inside","enteredAt":5,"dwellReported":false}]}"#
        #expect(throws: Never.self) { try DeviceRecordEncoding.decode(Array(good.utf8)) }
        let cases = [
            ("", "not JSON: unexpected end of input at byte 0 (expected a value)"),
            ("[]", "not a JSON object"),
            (#"{"device":"d","seq":3,"knownGeneration":2}"#, "no regions"),
            (#"{"device":"d","seq":-1,"knownGeneration":2,"regions":[]}"#, "seq or knownGeneration is not a whole number in range"),
            (#"{"device":"d","seq":1.5,"knownGeneration":2,"regions":[]}"#, "seq or knownGeneration is not a whole number in range"),
            (#"{"seq":1,"knownGeneration":2,"regions":[]}"#, "device is missing"),
            (#"{"device":"d","seq":1,"knownGeneration":2,"regions":[{"fence":"f","state":"sideways","enteredAt":5,"dwellReported":false}]}"#,
             "a region's state is missing or unknown"),
            (#"{"device":"d","seq":1,"knownGeneration":2,"lastTimestamp":"soon","regions":[]}"#, "lastTimestamp is not a number"),
            (#"{"device":"d","seq":1,"knownGeneration":2,"regions":[{"fence":"f","state":"inside","enteredAt":5,"dwellReported":false,"pending":7}]}"#,
             "a region's pending is not an object"),
        ]
        for (text, reason) in cases {
            #expect(throws: UnreadableRecord.self) { try DeviceRecordEncoding.decode(Array(text.utf8)) }
            do {
                _ = try DeviceRecordEncoding.decode(Array(text.utf8))
            } catch {
                #expect(error.description == reason, "\(text)")
            }
        }
    }
}
