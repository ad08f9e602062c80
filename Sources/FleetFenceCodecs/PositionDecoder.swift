/// Position payloads in: native (`lat`, `lon`, `ts`, `acc`, `spd`, `hdg`, `id`), Home Assistant
/// (`latitude`, `longitude`, `gps_accuracy`) and OwnTracks (`_type: location` with `lat`, `lon`, `tst`, `acc`).
///
/// `decode` and `decodeOwnTracks` try a byte scanner first and fall back to `JSONParser` (the same
/// strict RFC 8259 reader as fences) for anything the scanner does not handle; `decodeWithParser` and
/// `decodeOwnTracksWithParser` are the reference they must always agree with. A payload with a repeated
/// key is not valid JSON here (docs/topics-and-payloads.md "Fences").
public enum PositionDecoder {
    /// Larger payloads are rejected before any parsing.
    public static let maxPayloadBytes = 65_536

    // MARK: Native and Home Assistant

    /// Decodes a payload of `fleet/<deviceID>/position`.
    public static func decode(_ payload: UnsafeRawBufferPointer, deviceID: String) -> Result<DecodedPosition, PositionRejection> {
        decodeFast(payload, deviceID: deviceID) ?? decodeWithParser(payload, deviceID: deviceID)
    }

    public static func decode(_ payload: [UInt8], deviceID: String) -> Result<DecodedPosition, PositionRejection> {
        payload.withUnsafeBytes { decode($0, deviceID: deviceID) }
    }

    /// The reference decoder: `JSONParser`, then the same validation as the fast path.
    public static func decodeWithParser(
        _ payload: UnsafeRawBufferPointer, deviceID: String
    ) -> Result<DecodedPosition, PositionRejection> {
        withParser(payload) { PositionValidator.native($0, deviceID: deviceID) }
    }

    /// The scanner's answer, or `nil` when only the reference decoder can give it. `package` for the fuzz
    /// checks (`Fuzz/`), which hold it to the reference decoder's answer.
    package static func decodeFast(_ payload: UnsafeRawBufferPointer, deviceID: String) -> Result<DecodedPosition, PositionRejection>? {
        fast(payload) { PositionValidator.native($0, deviceID: deviceID) }
    }

    // MARK: OwnTracks

    /// Decodes an OwnTracks payload (`owntracks/<user>/<device>`). Other `_type`s are `.ignored`.
    /// An `id` field must equal `deviceID` (`<user>-<device>`).
    public static func decodeOwnTracks(
        _ payload: UnsafeRawBufferPointer, deviceID: String
    ) -> Result<DecodedPosition, PositionRejection> {
        decodeOwnTracksFast(payload, deviceID: deviceID) ?? decodeOwnTracksWithParser(payload, deviceID: deviceID)
    }

    public static func decodeOwnTracks(_ payload: [UInt8], deviceID: String) -> Result<DecodedPosition, PositionRejection> {
        payload.withUnsafeBytes { decodeOwnTracks($0, deviceID: deviceID) }
    }

    /// The reference OwnTracks decoder.
    public static func decodeOwnTracksWithParser(
        _ payload: UnsafeRawBufferPointer, deviceID: String
    ) -> Result<DecodedPosition, PositionRejection> {
        withParser(payload) { PositionValidator.ownTracks($0, deviceID: deviceID) }
    }

    package static func decodeOwnTracksFast(
        _ payload: UnsafeRawBufferPointer, deviceID: String
    ) -> Result<DecodedPosition, PositionRejection>? {
        fast(payload) { PositionValidator.ownTracks($0, deviceID: deviceID) }
    }

    // MARK: The two readers, for either dialect's validation

    /// The scanner's fields validated, or `nil` when only the parser can read the payload.
    @inline(__always)
    private static func fast(
        _ payload: UnsafeRawBufferPointer,
        _ validate: (PositionFields<UnsafeRawBufferPointer>) -> Result<DecodedPosition, PositionRejection>
    ) -> Result<DecodedPosition, PositionRejection>? {
        guard payload.count <= maxPayloadBytes else { return .failure(.tooLarge(bytes: payload.count)) }
        var fields = PositionFields<UnsafeRawBufferPointer>()
        guard PositionScanner.scan(payload, into: &fields) else { return nil }
        return validate(fields)
    }

    private static func withParser(
        _ payload: UnsafeRawBufferPointer, _ validate: (PositionFields<String>) -> Result<DecodedPosition, PositionRejection>
    ) -> Result<DecodedPosition, PositionRejection> {
        guard payload.count <= maxPayloadBytes else { return .failure(.tooLarge(bytes: payload.count)) }
        return readWithParser(payload).flatMap(validate)
    }

    /// The known fields of a payload, as `JSONParser` sees them.
    private static func readWithParser(_ payload: UnsafeRawBufferPointer) -> Result<PositionFields<String>, PositionRejection> {
        let object: JSONObject
        switch JSONParser.parse(payload) {
        case let .success(.object(parsed)): object = parsed
        case let .success(other): return .failure(.notAnObject(found: other.kind.name))
        case let .failure(error): return .failure(.notJSON(detail: error.detail))
        }
        var fields = PositionFields<String>()
        for key in PositionKey.allCases {
            if let value = object[key.name] { fields[key] = RawValue(value) }
        }
        return .success(fields)
    }
}
