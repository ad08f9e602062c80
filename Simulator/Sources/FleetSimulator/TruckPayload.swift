/// The position JSON a truck publishes, written byte by byte with fixed decimals (7 for degrees:
/// about 1 cm). At 10,000 trucks the simulator formats tens of thousands of these a second;
/// `JSONEncoder` would be its bottleneck, and shortest-round-trip numbers make longer payloads.
///
/// `{"lat":49.2934060,"lon":8.6413620,"ts":1795600000.500,"acc":5.0,"spd":13.9,"hdg":270}`
public enum TruckPayload {
    public static func encode(_ sample: TruckSample) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(112)
        append("{\"lat\":", &out)
        appendFixed(sample.observed.lat, digits: 7, &out)
        append(",\"lon\":", &out)
        appendFixed(sample.observed.lon, digits: 7, &out)
        append(",\"ts\":", &out)
        appendFixed(sample.time, digits: 3, &out)
        append(",\"acc\":", &out)
        appendFixed(sample.accuracy, digits: 1, &out)
        append(",\"spd\":", &out)
        appendFixed(sample.truth.speed, digits: speedDigits, &out)
        append(",\"hdg\":", &out)
        appendFixed(sample.truth.heading, digits: 0, &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Decimals of `spd`, m/s: a tenth is 0.36 km/h.
    static let speedDigits = 1

    /// `spd` as the payload carries it (the noise-free speed, rounded): what the service compares
    /// with a fence's `speed_limit_kmh`, and so what ground truth judges speeding on.
    public static func published(speed: Double) -> Double {
        var scale: Double = 1
        for _ in 0..<speedDigits { scale *= 10 }
        let units = (abs(speed) * scale).rounded(.toNearestOrAwayFromZero)
        return (speed < 0 ? -units : units) / scale
    }

    private static func append(_ text: StaticString, _ out: inout [UInt8]) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    /// A finite value with a fixed number of decimals (rounded half away from zero).
    static func appendFixed(_ value: Double, digits: Int, _ out: inout [UInt8]) {
        guard value.isFinite else {
            out.append(UInt8(ascii: "0"))
            return
        }
        var scale: Double = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9.0e18 else {
            out.append(contentsOf: Array(String(value).utf8))
            return
        }
        var units = UInt64(scaled)
        if value < 0, units > 0 { out.append(UInt8(ascii: "-")) }
        // Least significant digit first, then reversed in place: no temporary buffer.
        let begin = out.count
        var count = 0
        repeat {
            if count == digits, digits > 0 { out.append(UInt8(ascii: ".")) }
            out.append(UInt8(ascii: "0") + UInt8(units % 10))
            units /= 10
            count += 1
        } while units > 0 || count <= digits
        out[begin...].reverse()
    }
}
