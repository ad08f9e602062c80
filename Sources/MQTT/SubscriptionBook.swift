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
        return known
    }
}

extension MosquittoHandle {
    /// Sends one SUBSCRIBE per QoS level. Returns the mids to await, and the libmosquitto
    /// code of the first failure (`MOSQ_ERR_NO_CONN` is expected while disconnected:
    /// the next on_connect sends them again).
    func subscribe(_ entries: [SubscriptionBook.Entry]) -> (mids: [Int32], failure: Int32?) {
        var mids: [Int32] = []
        var failure: Int32?
        for qos in Set(entries.map(\.qos)).sorted() {
            let filters = entries.filter { $0.qos == qos }.map(\.filter)
            var mid: Int32 = 0
            let rc = withCStrings(filters) { pointers in
                mosquitto_subscribe_multiple(raw, &mid, Int32(pointers.count), pointers.baseAddress, qos, 0, nil)
            }
            if rc == MosquittoCode.success { mids.append(mid) } else if failure == nil { failure = rc }
        }
        return (mids, failure)
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
