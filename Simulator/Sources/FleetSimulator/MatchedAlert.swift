/// An alert the service sent for an event the noise-free path called for.
public struct MatchedAlert: Sendable, Hashable {
    public var alert: ReceivedAlert
    public var truth: ExpectedAlert

    /// `confirmed_at` minus when the event truly happened (`ExpectedAlert.due`), simulated
    /// seconds; `nil` for an alert without `confirmed_at` (a tour's events may carry none).
    public var delay: Double? { alert.confirmedAt.map { $0 - truth.due } }
}
