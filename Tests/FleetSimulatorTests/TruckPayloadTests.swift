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
}
