/// How far the broker has acknowledged this client's QoS 1 publishes, in publish order.
///
/// Every QoS 1 publish the client accepts (sent or queued for the reconnect) takes the next
/// ticket, 1, 2, 3, ...; `acknowledgedThrough` is the highest ticket whose PUBACK has come with
/// every ticket before it (or that will never come: a publish that waited for the connection and
/// that libmosquitto then could not take, which only a failed allocation does, is settled so that
/// the ones after it are not held back for good; its refusal is logged). A caller that notes `issued` after its publishes knows they are with
/// the broker once `acknowledgedThrough` reaches it: the service's outbox marks its alerts
/// published that way (docs/reliability.md "What is promised").
public struct PublishTickets: Sendable, Hashable {
    public var issued: UInt64
    public var acknowledgedThrough: UInt64

    public init(issued: UInt64 = 0, acknowledgedThrough: UInt64 = 0) {
        self.issued = issued
        self.acknowledgedThrough = acknowledgedThrough
    }

    /// QoS 1 publishes not yet acknowledged, or acknowledged out of order behind one that is not.
    public var outstanding: UInt64 { issued - acknowledgedThrough }
}
