/// Keeps publishes in order across a reconnect.
///
/// libmosquitto 2.0.11 resends what it queued while the connection was down only at the end of
/// its handling of the CONNACK (`message__retry_check`, after the on_connect callback), but it
/// sends a new QoS 1 publish at once whenever its in-flight window has room, which it has from
/// the reconnect on unless a full window of messages waits. So a publish made between the
/// reconnect and that point (the journal's writer publishes at any moment; a connection handler
/// runs inside it) reached the broker before older ones: a retained fence entry or device state
/// was replaced by the older one resent after it, and an alert of a device came before the one
/// before it. The gate is shut before each connect; what is published meanwhile waits here, and
/// the network thread hands it to libmosquitto, in order, once the CONNACK is handled and
/// libmosquitto's own resends are queued ahead of it.
struct PublishGate {
    struct Waiting {
        var topic: String
        var payload: [UInt8]
        var qos: Int32
        var retain: Bool
        /// The ledger's ticket, taken when it was published (``PublishLedger/issue()``).
        var ticket: UInt64?
    }

    /// Publishes go to libmosquitto at once; shut before each connect, until its CONNACK has
    /// been handled.
    var open = false
    var waiting: [Waiting] = []
}
