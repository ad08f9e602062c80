/// A journal row that does not read back as the record it should hold, and why. The restore
/// skips such a row with this reason in its warning.
public struct UnreadableRecord: Error, CustomStringConvertible {
    public var description: String
}
