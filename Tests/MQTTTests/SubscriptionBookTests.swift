import Testing

@testable import MQTT

/// What the client knows of each filter's SUBACK, without a broker: the orders a network can
/// bring that a live test cannot provoke at will.
struct SubscriptionBookTests {
    @Test func aRefusalIsSaidOnceAndItsGrantOnce() {
        var book = SubscriptionBook()
        _ = book.add(["open/#", "closed/#"], qos: 1)
        book.sending([(mid: 1, filters: ["open/#", "closed/#"])])
        #expect(book.acknowledged(mid: 1, granted: [1, 0x80]) == (refused: ["closed/#"], granted: []))
        #expect(book.refused == ["closed/#"])
        book.sending([(mid: 2, filters: ["closed/#"])])
        #expect(book.acknowledged(mid: 2, granted: [0x80]) == (refused: [], granted: []))
        book.sending([(mid: 3, filters: ["closed/#"])])
        #expect(book.acknowledged(mid: 3, granted: [1]) == (refused: [], granted: ["closed/#"]))
        #expect(book.refused.isEmpty && book.awaitingAck.isEmpty)
    }

    /// Unsubscribed before its SUBACK came: the refusal is of a filter nobody wants any more, and
    /// must not leave the service reporting it for good.
    @Test func aRefusalOfAFilterUnsubscribedMeanwhileIsForgotten() {
        var book = SubscriptionBook()
        _ = book.add(["closed/#"], qos: 1)
        book.sending([(mid: 1, filters: ["closed/#"])])
        #expect(book.remove(["closed/#"]) == ["closed/#"])
        #expect(book.acknowledged(mid: 1, granted: [0x80]) == (refused: [], granted: []))
        #expect(book.refused.isEmpty)
    }
}
