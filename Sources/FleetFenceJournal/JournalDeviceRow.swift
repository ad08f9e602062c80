/// A device's engine state as stored for the restart: the journal does not look inside the blob.
public struct JournalDeviceRow: Sendable, Equatable {
    public var device: String
    public var state: [UInt8]

    public init(device: String, state: [UInt8]) {
        self.device = device
        self.state = state
    }
}
