/// The service stopped because its journal could not be written (docs/operations.md "Limits and failures"):
/// the command exits non-zero, so that a supervisor restarts it.
public struct JournalUnwritable: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { "the journal cannot be written: \(reason)" }
}
