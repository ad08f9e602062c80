/// A period a device spent inside a fence, paired from its enter and exit transitions.
public struct JournalStay: Sendable, Equatable {
    public var device: String
    /// The enter's estimated crossing time; `nil` when the device was already inside when first seen
    /// (first sight is silent, so there is no enter to pair) or an earlier exit was not followed by an enter.
    public var enteredAt: Double?
    /// The exit's estimated crossing time; `nil` when no exit follows the enter (still inside, or the
    /// journal has another enter next, so the end is unknown).
    public var exitedAt: Double?

    public init(device: String, enteredAt: Double?, exitedAt: Double?) {
        self.device = device
        self.enteredAt = enteredAt
        self.exitedAt = exitedAt
    }
}
