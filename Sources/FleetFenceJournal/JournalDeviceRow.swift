/// A device's engine state as stored for the restart: the journal does not look inside the blob.
public struct JournalDeviceRow: Sendable, Equatable {
    public var device: String
    public var state: [UInt8]
    /// When the row was written (wall clock); `nil` for a row not read from the journal.
    public var updatedAt: Double?

    public init(device: String, state: [UInt8], updatedAt: Double? = nil) {
        self.device = device
        self.state = state
        self.updatedAt = updatedAt
    }

    /// Rows are equal by what they hold: when one was written is the journal's bookkeeping.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.device == rhs.device && lhs.state == rhs.state
    }
}
