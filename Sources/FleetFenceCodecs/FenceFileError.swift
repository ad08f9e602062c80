/// Why a fences file could not be read at all (unreadable, not JSON, not a FeatureCollection).
public struct FenceFileError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "fences file \(path): \(reason)" }
}
