/// Why a tour definition was rejected (docs/rules.md "Tours"): nothing changes.
public enum TourError: Error, Sendable, Hashable, CustomStringConvertible {
    case emptyID
    case idTooLong(bytes: Int)
    case noStops
    case tooManyStops(count: Int, limit: Int)
    /// The same fence twice: a visit could not say which stop it is.
    case duplicateStop(String)
    /// An empty stop id, or one longer than a fence id may be.
    case invalidStop(String)
    case invalidDevices(DevicePatternError)

    public var description: String {
        switch self {
        case .emptyID: "tour id is empty"
        case let .idTooLong(bytes): "tour id is \(bytes) bytes long, at most \(IDRules.maxBytes) are accepted"
        case .noStops: "a tour needs at least one stop"
        case let .tooManyStops(count, limit): "tour has \(count) stops, at most \(limit) are accepted"
        case let .duplicateStop(stop): "stop \"\(stop)\" is listed more than once"
        case let .invalidStop(stop): "stop \"\(stop.prefix(64))\" is not a fence id (empty, or longer than \(IDRules.maxBytes) bytes)"
        case let .invalidDevices(error): "devices: \(error)"
        }
    }
}
