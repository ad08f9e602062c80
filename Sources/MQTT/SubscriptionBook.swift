import CMosquitto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The filters a client wants, remembered so every (re)connect can subscribe again
/// (a clean session starts with none), and the SUBSCRIBEs still awaiting their SUBACK.
struct SubscriptionBook {
    struct Entry: Equatable {
        var filter: String
        var qos: Int32
    }

    private(set) var entries: [Entry] = []
    /// mids of SUBSCRIBE and UNSUBSCRIBE packets whose acknowledgement is outstanding.
    var awaitingAck: Set<Int32> = []
    /// The filters of each SUBSCRIBE awaiting its SUBACK, in the order the SUBACK answers them.
    var sent: [Int32: [String]] = [:]
    /// Filters the broker refused (SUBACK 0x80, typically its ACL), until a later SUBACK grants them.
    var refused: Set<String> = []
    /// `onSubscribed` was told since the connection was accepted.
    var toldSettled = false
    /// The mid of the round trip `confirmSubscriptions` asked, until its UNSUBACK (or the next connection).
    var roundTrip: Int32?

    /// Whether to tell `onSubscribed` now: nothing awaits an acknowledgement, and it was not told
    /// yet on this connection.
    mutating func takeSettled() -> Bool {
        guard awaitingAck.isEmpty, !toldSettled else { return false }
        toldSettled = true
        return true
    }

    /// A SUBACK: which of the filters it answers were granted. Returns the filters refused that
    /// were not refused before, and those granted that were. A filter unsubscribed meanwhile is
    /// neither.
    mutating func acknowledged(mid: Int32, granted: [Int32]) -> (refused: [String], granted: [String]) {
        awaitingAck.remove(mid)
        var changes: (refused: [String], granted: [String]) = ([], [])
        guard let filters = sent.removeValue(forKey: mid) else { return changes }
        for (filter, answer) in zip(filters, granted) where entries.contains(where: { $0.filter == filter }) {
            if answer == 0x80 {
                if refused.insert(filter).inserted { changes.refused.append(filter) }
            } else if refused.remove(filter) != nil {
                changes.granted.append(filter)
            }
        }
        return changes
    }

    /// Notes SUBSCRIBEs just sent.
    mutating func sending(_ subscribes: [(mid: Int32, filters: [String])]) {
        for subscribe in subscribes {
            awaitingAck.insert(subscribe.mid)
            sent[subscribe.mid] = subscribe.filters
        }
    }

    /// Adds or updates filters; returns those that changed and must be sent.
    mutating func add(_ filters: [String], qos: Int32) -> [Entry] {
        var changed: [Entry] = []
        for filter in filters {
            let entry = Entry(filter: filter, qos: qos)
            if let index = entries.firstIndex(where: { $0.filter == filter }) {
                if entries[index] == entry { continue }
                entries[index] = entry
            } else {
                entries.append(entry)
            }
            changed.append(entry)
        }
        return changed
    }

    /// Forgets filters; returns those that were known.
    mutating func remove(_ filters: [String]) -> [String] {
        let known = filters.filter { filter in entries.contains { $0.filter == filter } }
        entries.removeAll { known.contains($0.filter) }
        refused.subtract(known)
        return known
    }
}

extension MosquittoHandle {
    /// Sends one SUBSCRIBE per QoS level. Returns each one's mid and filters, and the libmosquitto
    /// code of the first failure (`MOSQ_ERR_NO_CONN` is expected while disconnected:
    /// the next on_connect sends them again).
    func subscribe(_ entries: [SubscriptionBook.Entry]) -> (sent: [(mid: Int32, filters: [String])], failure: Int32?) {
        var sent: [(mid: Int32, filters: [String])] = []
        var failure: Int32?
        for qos in Set(entries.map(\.qos)).sorted() {
            let filters = entries.filter { $0.qos == qos }.map(\.filter)
            var mid: Int32 = 0
            let rc = withCStrings(filters) { pointers in
                mosquitto_subscribe_multiple(raw, &mid, Int32(pointers.count), pointers.baseAddress, qos, 0, nil)
            }
            if rc == MosquittoCode.success { sent.append((mid, filters)) } else if failure == nil { failure = rc }
        }
        return (sent, failure)
    }

    /// Sends one UNSUBSCRIBE; returns its mid, `nil` if it could not be sent.
    func unsubscribe(_ filters: [String]) -> Int32? {
        var mid: Int32 = 0
        let rc = withCStrings(filters) { pointers in
            mosquitto_unsubscribe_multiple(raw, &mid, Int32(pointers.count), pointers.baseAddress, nil)
        }
        return rc == MosquittoCode.success ? mid : nil
    }
}

/// Lends `strings` as a C `char *[]` for the duration of `body`.
private func withCStrings<Result>(_ strings: [String], _ body: (UnsafeBufferPointer<UnsafeMutablePointer<CChar>?>) -> Result) -> Result {
    let pointers = strings.map { strdup($0) }
    defer { pointers.forEach { free($0) } }
    return pointers.withUnsafeBufferPointer(body)
}
