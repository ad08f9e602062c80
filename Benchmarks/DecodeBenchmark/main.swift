// A benchmark, not a test: it prints figures and asserts nothing. Run in release:
//   swift build -c release --product decode-bench && .build/release/decode-bench [--repeat N]
// Positions decoded per second of one core, per input format (docs/trackers.md "Connecting trackers"): what
// each costs beside the native byte scanner, which the other inputs must not slow.
import FleetFenceCodecs
import Foundation
import SeededRandom

let arguments = CommandLine.arguments
let repeats = arguments.firstIndex(of: "--repeat").flatMap { Int(arguments[$0 + 1]) } ?? 5
let count = 200_000

/// CPU time of the calling thread, as engine-bench measures it.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}

/// Positions per CPU-second of `decode` over `payloads`, the best of `repeats`; `decode` returns
/// whether the payload decoded, and every one must.
func measure(_ payloads: [[UInt8]], _ decode: ([UInt8]) -> Bool) -> Double {
    var best = 0.0
    for _ in 0..<repeats {
        var accepted = 0
        let start = threadCPUSeconds()
        for payload in payloads where decode(payload) { accepted += 1 }
        let rate = Double(payloads.count) / (threadCPUSeconds() - start)
        precondition(accepted == payloads.count, "only \(accepted) of \(payloads.count) decoded")
        best = max(best, rate)
    }
    return best
}

var rng = SeededRandom(seed: 7)
struct Fix {
    var lat, lon, ts, acc, spd: Double
}
let fixes = (0..<count).map { k in
    Fix(
        lat: 49 + rng.nextUnit(), lon: 8 + rng.nextUnit(), ts: 1_795_600_000 + Double(k) * 0.25,
        acc: 3 + 20 * rng.nextUnit(), spd: 30 * rng.nextUnit())
}
func f(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }

let native = fixes.map { Array(#"{"lat":\#(f($0.lat, 7)),"lon":\#(f($0.lon, 7)),"ts":\#(f($0.ts, 3)),"acc":\#(f($0.acc, 1)),"spd":\#(f($0.spd, 1)),"hdg":270}"#.utf8) }
let nativeRate = measure(native) { payload in
    if case .success = PositionDecoder.decode(payload, deviceID: "truck-7") { return true }
    return false
}
print("decode-bench: \(count) positions a format, best of \(repeats), positions per CPU-second")
print("native     " + String(format: "%12.0f", nativeRate))

#if !NATIVE_ONLY
let traccar = fixes.map { fix in
    Array(#"{"position":{"id":1,"deviceId":7,"protocol":"teltonika","valid":true,"fixTime":"\#(String(RFC3339.format(fix.ts).dropLast()) + "+00:00")","latitude":\#(f(fix.lat, 7)),"longitude":\#(f(fix.lon, 7)),"altitude":112.0,"speed":\#(f(fix.spd / 0.514444, 3)),"course":270.0,"accuracy":\#(f(fix.acc, 1)),"attributes":{"sat":9,"ignition":true}},"device":{"id":7,"name":"Truck 7","uniqueId":"truck-7","status":"online"}}"#.utf8)
}
let traccarRate = measure(traccar) { payload in
    if case .success = TraccarPositionDecoder.decode(payload) { return true }
    return false
}
print("traccar    " + String(format: "%12.0f", traccarRate))

let mapping = try! PositionMapping(entry: [
    "topic": "acme/+/gps", "id": "topic:2", "lat": "/fix/lat", "lon": "/fix/lon", "ts": "/fix/time", "ts_unit": "ms",
    "spd": "/fix/kmh", "spd_unit": "km/h",
])
let mapped = fixes.map { Array(#"{"fix":{"lat":"\#(f($0.lat, 7))","lon":\#(f($0.lon, 7)),"time":\#(Int64($0.ts * 1000)),"kmh":\#(f($0.spd * 3.6, 1))}}"#.utf8) }
let mappedRate = measure(mapped) { payload in
    payload.withUnsafeBytes { bytes in
        if case .success = mapping.decode(bytes, topic: "acme/truck-7/gps") { return true }
        return false
    }
}
print("mapping    " + String(format: "%12.0f", mappedRate))

let osmand = fixes.map { fix in
    [("id", "truck-7"), ("lat", f(fix.lat, 7)), ("lon", f(fix.lon, 7)), ("timestamp", String(Int64(fix.ts))),
     ("speed", f(fix.spd / 0.514444, 2)), ("bearing", "270"), ("accuracy", f(fix.acc, 1)), ("batt", "87")]
}
var osmandBest = 0.0
for _ in 0..<repeats {
    let start = threadCPUSeconds()
    var accepted = 0
    for parameters in osmand {
        if case .success = OsmAndDecoder.decode(parameters: parameters.map { (name: $0.0, value: $0.1) }) { accepted += 1 }
    }
    precondition(accepted == osmand.count)
    osmandBest = max(osmandBest, Double(osmand.count) / (threadCPUSeconds() - start))
}
print("osmand     " + String(format: "%12.0f", osmandBest) + "   (query parameters, already split)")

let ownTracks = fixes.map { Array(#"{"_type":"location","lat":\#(f($0.lat, 7)),"lon":\#(f($0.lon, 7)),"tst":\#(Int64($0.ts)),"acc":\#(Int($0.acc)),"vel":\#(Int($0.spd * 3.6)),"tid":"t7"}"#.utf8) }
let ownTracksRate = measure(ownTracks) { payload in
    if case .success = PositionDecoder.decodeOwnTracks(payload, deviceID: "alice-phone") { return true }
    return false
}
print("owntracks  " + String(format: "%12.0f", ownTracksRate))
print(String(
    format: "RESULT native_pps=%.0f traccar_pps=%.0f mapping_pps=%.0f osmand_pps=%.0f owntracks_pps=%.0f",
    nativeRate, traccarRate, mappedRate, osmandBest, ownTracksRate))
#else
print(String(format: "RESULT native_pps=%.0f", nativeRate))
#endif
