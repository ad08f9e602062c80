/// Where the trucks' positions go: MQTT (`TruckPublisher`) or the service's HTTP inputs
/// (`HTTPTruckPublisher`). Either keeps each truck's positions in order.
protocol PositionSender: Sendable {
    var connectionCount: Int { get }
    func connect(timeout: Duration) async throws
    /// Hands `sample` over without blocking the schedule; counted in `sentCount` or
    /// `droppedCount` once its fate is known.
    func publish(_ sample: TruckSample)
    /// Waits for what is still on its way (up to `waitFor` for MQTT's QoS 1 acknowledgements;
    /// HTTP requests in flight are always awaited), then closes.
    func disconnect(waitFor: Duration) async
    var sentCount: Int { get }
    var droppedCount: Int { get }
}
