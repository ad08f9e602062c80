/// An alert the service sent for a crossing the noise-free path called for.
public struct MatchedAlert: Sendable, Hashable {
    public var alert: ReceivedAlert
    public var truth: ExpectedAlert

    /// `confirmed_at` minus when the event truly happened (dwell: crossing + `dwell_s`), simulated seconds.
    public var delay: Double { alert.confirmedAt - truth.due }
}
