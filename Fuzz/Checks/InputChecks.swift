import FleetFenceCodecs

/// The tracker inputs (docs/trackers.md "Connecting trackers"): Traccar's forwards, OsmAnd's JSON and query
/// parameters, a custom mapping and `POST /api/positions` batches. Whatever any of them accepts is
/// in range and names a device id that can be a topic level; the id a rejection is answered under is
/// the one an acceptance names.
enum InputChecks {
    static let mapping = try! PositionMapping(entry: [
        "topic": "acme/+/gps", "id": "/id", "lat": "/p/lat", "lon": "/p/lon", "ts": "/p/ts", "ts_unit": "ms",
        "acc": "/p/acc", "spd": "/p/spd", "spd_unit": "knots",
    ])
    static let latLonMapping = try! PositionMapping(entry: ["topic": "gps/#", "id": "topic:2", "latlon": "/ll", "ts_unit": "rfc3339", "ts": "/t"])

    static func check(_ bytes: UnsafeRawBufferPointer) throws(InvariantViolation) {
        let traccar = TraccarPositionDecoder.decode(bytes)
        try accepted(traccar, "Traccar")
        if case let .success(foreign) = traccar {
            try require(TraccarPositionDecoder.deviceID(in: bytes) == foreign.device, "Traccar: device \(foreign.device) not found again")
        }
        try accepted(OsmAndDecoder.decode(json: Array(bytes)), "OsmAnd JSON")
        try accepted(OsmAndDecoder.decode(parameters: parameters(bytes)), "OsmAnd parameters")
        let mapped = mapping.decode(bytes, topic: "acme/van/gps")
        try accepted(mapped, "mapping")
        if case let .success(foreign) = mapped {
            try require(mapping.deviceID(in: bytes, topic: "acme/van/gps") == foreign.device, "mapping: device \(foreign.device) not found again")
        }
        try accepted(latLonMapping.decode(bytes, topic: "gps/van-3"), "latlon mapping")
        if case let .success(items) = PositionBatchDecoder.decode(Array(bytes)) {
            for item in items { try accepted(item, "batch") }
        }
    }

    /// The bytes as a query string: `&`-separated `name=value` pairs, as the HTTP layer hands them over.
    static func parameters(_ bytes: UnsafeRawBufferPointer) -> [(name: String, value: String)] {
        String(decoding: bytes, as: UTF8.self).split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    private static func accepted(_ result: Result<ForeignPosition, PositionRejection>, _ input: String) throws(InvariantViolation) {
        guard case let .success(foreign) = result else { return }
        try require(DeviceIDRules.problem(foreign.device) == nil, "\(input): accepted device id \(foreign.device)")
        try PositionChecks.inRange(foreign.position, input)
    }
}
