/// One position sample as a tracker sends it.
struct PositionFix: Sendable {
    var lat: Double
    var lon: Double
    var ts: Double
    var acc: Double = 6
    var spd: Double = 0
    var hdg: Double = 0

    /// `{"lat": 49.2934061, "lon": 8.6413627, "ts": 1795600000.125, "acc": 6.5, "spd": 13.42, "hdg": 270.5}`
    /// (about 100 bytes, the layout of docs/topics-and-payloads.md "Topics and payloads" with tracker-like precision).
    func appendJSON(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"lat": "#.utf8)
        FixedDecimal.append(lat, decimals: 7, to: &bytes)
        bytes.append(contentsOf: #", "lon": "#.utf8)
        FixedDecimal.append(lon, decimals: 7, to: &bytes)
        bytes.append(contentsOf: #", "ts": "#.utf8)
        FixedDecimal.append(ts, decimals: 3, to: &bytes)
        bytes.append(contentsOf: #", "acc": "#.utf8)
        FixedDecimal.append(acc, decimals: 1, to: &bytes)
        bytes.append(contentsOf: #", "spd": "#.utf8)
        FixedDecimal.append(spd, decimals: 2, to: &bytes)
        bytes.append(contentsOf: #", "hdg": "#.utf8)
        FixedDecimal.append(hdg, decimals: 1, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }
}
