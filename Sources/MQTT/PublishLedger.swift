/// Counts QoS 1 publishes that libmosquitto holds until their PUBACK, to bound the
/// backlog and to let shutdown wait for them.
///
/// libmosquitto reports both a QoS 1 PUBACK and a written QoS 0 packet through the same
/// `on_publish(mid)` callback, so the ledger remembers which mids are QoS 0. The callback
/// may also run before `publish` has recorded the mid it just got (the network thread can
/// be faster than the caller): such early acknowledgements wait in `early` until recorded.
/// mids are 16-bit and wrap, so QoS 1 mids are counted, not just set-membered.
struct PublishLedger {
    let limit: Int
    /// Unacknowledged QoS >= 1 publishes, including reservations not yet recorded.
    private(set) var unacknowledged = 0
    private var qos1: [Int32: Int] = [:]
    private var qos0: Set<Int32> = []
    private var early: Set<Int32> = []

    init(limit: Int) {
        self.limit = limit
    }

    /// Claims a backlog slot before publishing at QoS >= 1; `false` when the backlog is full.
    mutating func reserve() -> Bool {
        guard unacknowledged < limit else { return false }
        unacknowledged += 1
        return true
    }

    /// Gives back a slot whose publish libmosquitto rejected.
    mutating func release() {
        unacknowledged -= 1
    }

    /// A reserved QoS >= 1 publish got `mid`.
    mutating func recordQoS1(mid: Int32) {
        if early.remove(mid) != nil {
            unacknowledged -= 1
        } else {
            qos1[mid, default: 0] += 1
        }
    }

    /// A QoS 0 publish got `mid`; libmosquitto reports it once written.
    mutating func recordQoS0(mid: Int32) {
        if early.remove(mid) == nil {
            qos0.insert(mid)
        }
    }

    /// libmosquitto's `on_publish(mid)`.
    mutating func acknowledge(mid: Int32) {
        if qos0.remove(mid) != nil { return }
        if let count = qos1[mid] {
            if count == 1 { qos1[mid] = nil } else { qos1[mid] = count - 1 }
            unacknowledged -= 1
        } else {
            early.insert(mid)
        }
    }

    /// Reconnecting discards unsent packets, so written-callbacks for QoS 0 never come.
    /// (QoS 1 messages survive: libmosquitto resends them.)
    mutating func forgetUnsentQoS0() {
        qos0.removeAll(keepingCapacity: true)
    }
}
