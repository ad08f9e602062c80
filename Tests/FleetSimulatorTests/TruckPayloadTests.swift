import FleetFenceCodecs
import Foundation
import GeofenceEngine
import Testing
@testable import FleetSimulator

@Suite("Truck payload")
struct TruckPayloadTests {
    func sample(lat: Double, lon: Double, time: Double, speed: Double, heading: Double, accuracy: Double) -> TruckSample {
        TruckSample(
            truck: 0, sequence: 0, time: time,
            truth: ReplayState(coordinate: Coordinate(lat: lat, lon: lon), speed: speed, heading: heading),
            observed: Coordinate(lat: lat, lon: lon), accuracy: accuracy, due: time)
    }

    @Test func writesTheContractsFields() throws {
        let bytes = TruckPayload.encode(sample(
            lat: 49.293406, lon: 8.641362, time: 1_795_600_000.5, speed: 13.8889, heading: 269.6, accuracy: 5))
        #expect(String(decoding: bytes, as: UTF8.self)
            == #"{"lat":49.2934060,"lon":8.6413620,"ts":1795600000.500,"acc":5.0,"spd":13.9,"hdg":270}"#)
        let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Double]
        #expect(object?["lat"] == 49.293406)
        #expect(object?["ts"] == 1_795_600_000.5)
    }

    @Test func negativeAndSmallNumbers() {
        let bytes = TruckPayload.encode(sample(lat: -0.00000004, lon: -122.5, time: 0.0004, speed: 0, heading: 0, accuracy: 0.05))
        #expect(String(decoding: bytes, as: UTF8.self)
            == #"{"lat":0.0000000,"lon":-122.5000000,"ts":0.000,"acc":0.1,"spd":0.0,"hdg":0}"#)
    }

    /// `--format traccar`: what the service's Traccar input reads back is the native payload's position.
    @Test func traccarFormatReadsBackAsTheNativePosition() throws {
        let truck = sample(lat: 49.293406, lon: 8.641362, time: 1_795_600_000.5, speed: 13.8889, heading: 269.6, accuracy: 5)
        let traccar = try TraccarPositionDecoder.decode(PositionFormat.traccar.encode(truck, device: "truck-3")).get()
        let native = try PositionDecoder.decode(PositionFormat.native.encode(truck, device: "truck-3"), deviceID: "truck-3").get()
        #expect(traccar.device == "truck-3")
        #expect(traccar.position.lat == native.lat && traccar.position.lon == native.lon)
        #expect(traccar.position.timestamp == native.timestamp && traccar.position.accuracy == native.accuracy)
        #expect(abs((traccar.position.speed ?? 0) - (native.speed ?? 0)) < 1e-6, "\(String(describing: traccar.position.speed))")
        #expect(traccar.position.heading == native.heading)
    }

    /// `--format mapping`: the service's mapping (the entry fleetsim documents) reads back the
    /// native payload's position; the string latitude, epoch milliseconds and km/h included.
    @Test func mappingFormatReadsBackAsTheNativePosition() throws {
        let truck = sample(lat: 49.293406, lon: 8.641362, time: 1_795_600_000.5, speed: 13.8889, heading: 269.6, accuracy: 5)
        let mapping = try PositionMapping(entry: [
            "topic": "acme/+/gps", "id": "topic:2", "lat": "/fix/lat", "lon": "/fix/lon", "ts": "/fix/time", "ts_unit": "ms",
            "spd": "/fix/kmh", "spd_unit": "km/h", "acc": "/fix/acc",
        ])
        let bytes = PositionFormat.mapping.encode(truck, device: "truck-3")
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix(#"{"fix":{"lat":"49.2934060","#))
        let mapped = try bytes.withUnsafeBytes { mapping.decode($0, topic: "acme/truck-3/gps") }.get()
        let native = try PositionDecoder.decode(PositionFormat.native.encode(truck, device: "truck-3"), deviceID: "truck-3").get()
        #expect(mapped.device == "truck-3")
        #expect(abs(mapped.position.lat - native.lat) < 1e-9 && abs(mapped.position.lon - native.lon) < 1e-9)
        #expect(mapped.position.timestamp == native.timestamp && mapped.position.accuracy == native.accuracy)
        #expect(abs((mapped.position.speed ?? 0) - (native.speed ?? 0)) < 1e-6, "\(String(describing: mapped.position.speed))")
        #expect(PositionFormat.mapping.publishedSpeed(13.8889) == native.speed)
    }

    /// `--format osmand`: the query the service's OsmAnd input reads back as the native position.
    @Test func osmAndRequestReadsBackAsTheNativePosition() throws {
        let truck = sample(lat: 49.293406, lon: 8.641362, time: 1_795_600_000.5, speed: 13.8889, heading: 269.6, accuracy: 5)
        let request = HTTPTruckPublisher.request(truck, device: "truck-3", format: .osmand, base: "http://127.0.0.1:1")
        let url = try #require(URLComponents(string: request.url))
        #expect(url.path == "/api/osmand")
        let parameters = (url.queryItems ?? []).map { (name: $0.name, value: $0.value ?? "") }
        let osmand = try OsmAndDecoder.decode(parameters: parameters).get()
        let native = try PositionDecoder.decode(PositionFormat.native.encode(truck, device: "truck-3"), deviceID: "truck-3").get()
        #expect(osmand.device == "truck-3")
        #expect(osmand.position.lat == native.lat && osmand.position.lon == native.lon)
        #expect(osmand.position.timestamp == native.timestamp && osmand.position.accuracy == native.accuracy)
        #expect(abs((osmand.position.speed ?? 0) - (native.speed ?? 0)) < 1e-6, "\(String(describing: osmand.position.speed))")
    }

    /// `--format owntracks-http`: the body the service reads as an OwnTracks location of
    /// `fleet-truck-3`, at the sample's whole second, with its speed in whole km/h.
    @Test func ownTracksBodyReadsBackAtItsWholeSecond() throws {
        let truck = sample(lat: 49.293406, lon: 8.641362, time: 1_795_600_000, speed: 13.8889, heading: 269.6, accuracy: 10)
        let request = HTTPTruckPublisher.request(truck, device: "fleet-truck-3", format: .owntracksHTTP, base: "http://127.0.0.1:1")
        #expect(request.headers["X-Limit-U"] == ["fleet"] && request.headers["X-Limit-D"] == ["truck-3"])
        let body = HTTPTruckPublisher.ownTracksBody(truck)
        #expect(String(decoding: body, as: UTF8.self)
            == #"{"_type":"location","lat":49.2934060,"lon":8.6413620,"tst":1795600000,"acc":10,"vel":50}"#)
        let position = try PositionDecoder.decodeOwnTracks(body, deviceID: "fleet-truck-3").get()
        #expect(position.lat == 49.293406 && position.lon == 8.641362)
        #expect(position.timestamp == 1_795_600_000 && position.accuracy == 10)
        // Ground truth judges speeding on what the service reads: 50 km/h.
        #expect(position.speed == PositionFormat.owntracksHTTP.publishedSpeed(13.8889))
        #expect(position.speed == 50 / 3.6)
    }

    /// OwnTracks' whole seconds: every sample time of a fleet with `wholeSeconds` is whole,
    /// staggered starts and a route's end included.
    @Test func wholeSecondFleetsSampleAtWholeSeconds() throws {
        var options = FleetOptions()
        options.trucks = 5
        options.startTime = 1_795_600_000
        options.speedKmh = 37
        options.wholeSeconds = true
        let route = GPXRoute(name: "r", points: [RoutePoint(lat: 49.29, lon: 8.64), RoutePoint(lat: 49.2912, lon: 8.6417)], kind: .route)
        let plan = FleetPlan(routes: [route], options: options)
        for truck in plan.trucks {
            let times = Array(plan.sampleTimes(truck))
            #expect(times.count > 2)
            #expect(times.allSatisfy { $0.rounded() == $0 }, "\(times)")
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        }
    }
}
