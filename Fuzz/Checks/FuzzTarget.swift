/// The fuzz targets (docs/performance.md "Fuzzing"): each one feeds bytes to one reader and holds its answer to
/// invariants. The libFuzzer entry points in `Fuzz/Targets` and the corpus replay in
/// `Tests/FuzzCorpusTests` both call `check`, so a regular `swift test` keeps every input the fuzzer
/// kept, crashes fixed included, to the same rules.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// Position payloads, native and OwnTracks: the byte scanner must agree with the parser.
    case positions
    /// Any JSON: what parses writes back through `JSONWriter` and reads again as the same value.
    case json
    /// Fence definitions and fences files: what decodes builds an engine `Fence` and survives its encoding.
    case fences
    /// RFC 3339 times: what parses formats and parses back to the same millisecond.
    case rfc3339
    /// GPX files, as `fleetsim` reads its routes.
    case gpx
    /// Tour definitions: `set` payloads and `PUT /api/tours/{id}` bodies.
    case tours
    /// The tracker inputs: Traccar, OsmAnd (JSON and parameters), mappings, HTTP batches.
    case inputs

    /// Throws the first invariant `bytes` break; a reader that crashes or hangs is found by the fuzzer itself.
    public func check(_ bytes: UnsafeRawBufferPointer) throws(InvariantViolation) {
        switch self {
        case .positions: try PositionChecks.check(bytes)
        case .json: try JSONChecks.check(bytes)
        case .fences: try FenceChecks.check(bytes)
        case .rfc3339: try RFC3339Checks.check(bytes)
        case .gpx: try GPXChecks.check(bytes)
        case .tours: try TourChecks.check(bytes)
        case .inputs: try InputChecks.check(bytes)
        }
    }

    /// For `LLVMFuzzerTestOneInput`: a broken invariant stops the process, which libFuzzer reports as a crash
    /// and keeps the input.
    public func run(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        do throws(InvariantViolation) {
            try check(UnsafeRawBufferPointer(start: data, count: size))
        } catch {
            fatalError("\(rawValue): \(error)")
        }
    }
}

/// An invariant a reader's answer broke, in words.
public struct InvariantViolation: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// Throws `message` unless `condition` holds.
@inline(__always)
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(InvariantViolation) {
    if !condition { throw InvariantViolation(message()) }
}
