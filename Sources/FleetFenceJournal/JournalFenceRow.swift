/// A fence as stored for the restart: the engine's record (opaque here) and where it came from.
public struct JournalFenceRow: Sendable, Equatable {
    public enum Origin: String, Sendable {
        /// From `fences.file`: a reload that no longer lists it removes it.
        case file
        /// Set on `<prefix>/fences/<id>/set`: kept until deleted there.
        case runtime
    }

    public var id: String
    public var record: [UInt8]
    public var origin: Origin

    public init(id: String, record: [UInt8], origin: Origin) {
        self.id = id
        self.record = record
        self.origin = origin
    }
}
