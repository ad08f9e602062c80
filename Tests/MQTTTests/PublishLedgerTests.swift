import Testing

@testable import MQTT

/// The ledger's tickets: `acknowledgedThrough` never passes a QoS 1 publish the broker has not
/// acknowledged, whatever order the callbacks come in (the service's outbox counts on it).
@Suite struct PublishLedgerTests {
    private func recorded(_ mids: [Int32]) -> PublishLedger {
        var ledger = PublishLedger(limit: 100)
        for mid in mids {
            let reserved = ledger.reserve()
            #expect(reserved)
            ledger.recordQoS1(mid: mid)
        }
        return ledger
    }

    private func acknowledge(_ ledger: inout PublishLedger, _ mid: Int32) -> Bool {
        ledger.acknowledge(mid: mid)
    }

    @Test func acknowledgementsOutOfOrderMoveTheMarkOnlyOverAnUnbrokenRun() {
        var ledger = recorded([1, 2, 3])
        #expect(acknowledge(&ledger, 2) == false)
        #expect(ledger.tickets == PublishTickets(issued: 3, acknowledgedThrough: 0))
        #expect(acknowledge(&ledger, 1) == true)
        #expect(ledger.tickets.acknowledgedThrough == 2, "1 and the 2 held back")
        #expect(acknowledge(&ledger, 3) == true)
        #expect(ledger.tickets == PublishTickets(issued: 3, acknowledgedThrough: 3))
        #expect(ledger.unacknowledged == 0)
    }

    /// A publish that waited for the gate took its ticket when it was made: its mid, given later,
    /// settles that ticket; one libmosquitto then refused settles it without a PUBACK, so that the
    /// ones after it still count as acknowledged.
    @Test func ticketsTakenBeforeTheMidKeepThePublishOrder() {
        var ledger = PublishLedger(limit: 100)
        for _ in 0..<3 {
            let reserved = ledger.reserve()
            #expect(reserved)
        }
        let waited = [ledger.issue(), ledger.issue()]
        ledger.recordQoS1(mid: 9)  // a later ticket whose mid is recorded first: the order of tickets decides
        #expect(ledger.tickets.issued == 3)
        ledger.recordQoS1(mid: 4, ticket: waited[0])
        ledger.abandon(ticket: waited[1])
        #expect(ledger.unacknowledged == 2)
        #expect(ledger.acknowledge(mid: 9) == false, "ticket 3 waits for ticket 1")
        #expect(ledger.acknowledge(mid: 4) == true)
        #expect(ledger.tickets == PublishTickets(issued: 3, acknowledgedThrough: 3))
        #expect(ledger.unacknowledged == 0)
    }

    /// mids are 16-bit: a mid still unacknowledged may be given again; each PUBACK settles the
    /// oldest publish of its mid.
    @Test func aReusedMidSettlesItsPublishesOldestFirst() {
        var ledger = recorded([7, 8, 7])
        #expect(acknowledge(&ledger, 7) == true)
        #expect(ledger.tickets.acknowledgedThrough == 1)
        #expect(acknowledge(&ledger, 8) == true)
        #expect(ledger.tickets.acknowledgedThrough == 2)
        #expect(acknowledge(&ledger, 7) == true)
        #expect(ledger.tickets.acknowledgedThrough == 3)
    }

    /// The network thread may report a PUBACK before `publish` recorded the mid it got.
    @Test func anEarlyAcknowledgementCountsOnceTheMidIsRecorded() {
        var ledger = recorded([1])
        let reserved = ledger.reserve()
        #expect(reserved)
        #expect(acknowledge(&ledger, 2) == false)
        #expect(ledger.tickets.acknowledgedThrough == 0)
        ledger.recordQoS1(mid: 2)
        #expect(ledger.tickets == PublishTickets(issued: 2, acknowledgedThrough: 0), "2 waits for 1")
        #expect(acknowledge(&ledger, 1) == true)
        #expect(ledger.tickets.acknowledgedThrough == 2)
    }

    @Test func qos0PublishesTakeNoTicket() {
        var ledger = recorded([1])
        ledger.recordQoS0(mid: 2)
        #expect(acknowledge(&ledger, 2) == false)
        #expect(ledger.tickets == PublishTickets(issued: 1, acknowledgedThrough: 0))
    }
}
