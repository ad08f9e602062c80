/// Counts QoS 1 publishes held until their PUBACK (by libmosquitto, or waiting for the connection
/// in the ``PublishGate``), to bound the backlog and to let shutdown wait for them.
///
/// libmosquitto reports both a QoS 1 PUBACK and a written QoS 0 packet through the same
/// `on_publish(mid)` callback, so the ledger remembers which mids are QoS 0. The callback
/// may also run before `publish` has recorded the mid it just got (the network thread can
/// be faster than the caller): such early acknowledgements wait in `early` until recorded.
/// mids are 16-bit and wrap, so a mid may stand for more than one QoS 1 publish: each keeps its
/// ticket (``PublishTickets``), and a PUBACK settles the oldest of its mid.
struct PublishLedger {
    let limit: Int
    /// Unacknowledged QoS >= 1 publishes, including reservations not yet recorded.
    private(set) var unacknowledged = 0
    private(set) var tickets = PublishTickets()
    /// Each unacknowledged mid's oldest ticket; the rare later ones of a mid that wrapped while
    /// still unacknowledged in `reused`, oldest first (an array per publish would be an
    /// allocation per message).
    private var qos1: [Int32: UInt64] = [:]
    private var reused: [Int32: [UInt64]] = [:]
    /// Tickets acknowledged ahead of an older one still unacknowledged.
    private var acknowledgedAhead: Set<UInt64> = []
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

    /// The next ticket, in publish order: taken by a reserved QoS >= 1 publish when it is made.
    mutating func issue() -> UInt64 {
        tickets.issued += 1
        return tickets.issued
    }

    /// A reserved QoS >= 1 publish got `mid`; `ticket` when it took one before libmosquitto had it
    /// (it waited for the ``PublishGate``).
    mutating func recordQoS1(mid: Int32, ticket: UInt64? = nil) {
        let ticket = ticket ?? issue()
        if early.remove(mid) != nil {
            unacknowledged -= 1
            settle(ticket)
        } else {
            if qos1[mid] == nil { qos1[mid] = ticket } else { reused[mid, default: []].append(ticket) }
        }
    }

    /// A publish that waited for the gate and that libmosquitto then refused: its slot is given
    /// back and its ticket settled, so that the ones after it can count as acknowledged.
    mutating func abandon(ticket: UInt64) {
        unacknowledged -= 1
        settle(ticket)
    }

    /// A QoS 0 publish got `mid`; libmosquitto reports it once written.
    mutating func recordQoS0(mid: Int32) {
        if early.remove(mid) == nil {
            qos0.insert(mid)
        }
    }

    /// libmosquitto's `on_publish(mid)`; whether `tickets.acknowledgedThrough` moved.
    @discardableResult
    mutating func acknowledge(mid: Int32) -> Bool {
        if qos0.remove(mid) != nil { return false }
        if let ticket = qos1[mid] {
            if var later = reused[mid] {
                qos1[mid] = later.removeFirst()
                reused[mid] = later.isEmpty ? nil : later
            } else {
                qos1[mid] = nil
            }
            unacknowledged -= 1
            let before = tickets.acknowledgedThrough
            settle(ticket)
            return tickets.acknowledgedThrough != before
        } else {
            early.insert(mid)
            return false
        }
    }

    private mutating func settle(_ ticket: UInt64) {
        guard ticket == tickets.acknowledgedThrough + 1 else {
            acknowledgedAhead.insert(ticket)
            return
        }
        tickets.acknowledgedThrough = ticket
        while acknowledgedAhead.remove(tickets.acknowledgedThrough + 1) != nil { tickets.acknowledgedThrough += 1 }
    }

    /// Reconnecting discards unsent packets, so written-callbacks for QoS 0 never come.
    /// (QoS 1 messages survive: libmosquitto resends them.)
    mutating func forgetUnsentQoS0() {
        qos0.removeAll(keepingCapacity: true)
    }
}
