/// Which broker the network thread tries next, when the client knows several nodes of one
/// cluster (docs/several-instances.md "Several instances"): the first that answers at start, and after a loss the
/// following ones in order, wrapping around, so that a dead node costs one failed attempt rather
/// than a backoff spent waiting for it. A pause is due once every broker has failed in a row.
struct BrokerRotation {
    let urls: [MQTTURL]
    private(set) var index = 0
    /// Attempts that failed since the last success.
    private var failures = 0

    init(urls: [MQTTURL]) {
        precondition(!urls.isEmpty, "at least one broker")
        self.urls = urls
    }

    var current: MQTTURL { urls[index] }

    /// Whether every broker failed once since the last success: wait before the next round.
    var roundFailed: Bool { failures > 0 && failures % urls.count == 0 }

    /// Moves on after a failed or lost connection.
    mutating func advance() {
        failures += 1
        index = (index + 1) % urls.count
    }

    mutating func succeeded() {
        failures = 0
    }
}
