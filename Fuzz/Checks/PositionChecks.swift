import FleetFenceCodecs

/// Position decoding (docs/topics-and-payloads.md "Topics and payloads"): the byte scanner, when it answers, and the public
/// decoder give exactly the reference parser's answer, bit for bit; an accepted position is in range.
enum PositionChecks {
    static let device = "truck-7"

    static func check(_ bytes: UnsafeRawBufferPointer) throws(InvariantViolation) {
        let native = (
            fast: PositionDecoder.decodeFast(bytes, deviceID: device),
            decoded: PositionDecoder.decode(bytes, deviceID: device),
            reference: PositionDecoder.decodeWithParser(bytes, deviceID: device)
        )
        let ownTracks = (
            fast: PositionDecoder.decodeOwnTracksFast(bytes, deviceID: device),
            decoded: PositionDecoder.decodeOwnTracks(bytes, deviceID: device),
            reference: PositionDecoder.decodeOwnTracksWithParser(bytes, deviceID: device)
        )
        for (dialect, answers) in [("native", native), ("OwnTracks", ownTracks)] {
            if let fast = answers.fast {
                try require(identical(fast, answers.reference), "\(dialect): fast path \(fast), parser \(answers.reference)")
            }
            try require(identical(answers.decoded, answers.reference), "\(dialect): decode \(answers.decoded), parser \(answers.reference)")
            if case let .success(position) = answers.reference { try inRange(position, dialect) }
        }
    }

    static func inRange(_ p: DecodedPosition, _ dialect: String) throws(InvariantViolation) {
        try require(p.lat.isFinite && abs(p.lat) <= 90 && p.lon.isFinite && abs(p.lon) <= 180, "\(dialect): accepted \(p)")
        if let ts = p.timestamp { try require(ts > 0 && ts <= RFC3339.maxSeconds, "\(dialect): accepted time \(ts)") }
        if let acc = p.accuracy { try require(acc.isFinite && acc >= 0, "\(dialect): accepted accuracy \(acc)") }
        if let spd = p.speed { try require(spd.isFinite && spd >= 0, "\(dialect): accepted speed \(spd)") }
        if let hdg = p.heading { try require(hdg >= 0 && hdg <= 360, "\(dialect): accepted heading \(hdg)") }
    }

    /// Equal, every `Double` bit for bit (so 0.0 and -0.0 differ).
    static func identical(_ a: Result<DecodedPosition, PositionRejection>, _ b: Result<DecodedPosition, PositionRejection>) -> Bool {
        switch (a, b) {
        case let (.success(x), .success(y)):
            func same(_ p: Double?, _ q: Double?) -> Bool { p?.bitPattern == q?.bitPattern }
            return same(x.lat, y.lat) && same(x.lon, y.lon) && same(x.timestamp, y.timestamp)
                && same(x.accuracy, y.accuracy) && same(x.speed, y.speed) && same(x.heading, y.heading)
        case let (.failure(x), .failure(y)):
            return x == y
        default:
            return false
        }
    }
}
