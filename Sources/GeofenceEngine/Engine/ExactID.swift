import Foundation

/// An id compared byte for byte (docs/topics-and-payloads.md "Fences"; device ids are the exact bytes of their topic
/// level). Swift's `String` equality and hashing follow Unicode canonical equivalence, so
/// "Bus-Müller" with a composed ü and with u plus a combining diaeresis would be one key; the
/// broker's ACLs judge bytes, and so must every table of devices and fences.
public struct ExactID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let string: String

    public init(_ string: String) {
        var string = string
        // Contiguous UTF-8, so that comparing and hashing read the bytes in place.
        string.makeContiguousUTF8()
        self.string = string
    }

    public var description: String { string }

    public static func == (lhs: ExactID, rhs: ExactID) -> Bool {
        lhs.withBytes { a in
            rhs.withBytes { b in
                a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
            }
        }
    }

    public func hash(into hasher: inout Hasher) {
        withBytes { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
    }

    /// Byte order, which for UTF-8 is the order of Unicode scalar values. By `memcmp`: the
    /// journal's writer sorts the rows of a start with 100,000 fences by id, 200,000 of them, and
    /// comparing byte by byte was 6% of the start's CPU (perf).
    public static func < (lhs: ExactID, rhs: ExactID) -> Bool {
        lhs.withBytes { a in
            rhs.withBytes { b in
                let common = min(a.count, b.count)
                let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
                return order != 0 ? order < 0 : a.count < b.count
            }
        }
    }

    /// The first 16 bytes as two integers, most significant first, zeros past the end: two ids
    /// whose keys differ are in the keys' order (a prefix has zeros where the longer id has a
    /// byte), and two whose keys are equal need the whole comparison.
    fileprivate var prefixKey: (UInt64, UInt64) {
        withBytes { bytes in
            var key: (UInt64, UInt64) = (0, 0)
            for index in 0..<min(bytes.count, 16) {
                let shift = UInt64(56 - 8 * (index % 8))
                if index < 8 { key.0 |= UInt64(bytes[index]) << shift } else { key.1 |= UInt64(bytes[index]) << shift }
            }
            return key
        }
    }

    private func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(string.utf8).withUnsafeBufferPointer(body)
    }
}

extension Sequence<ExactID> {
    /// The ids in byte order, as `sorted()` puts them, each compared by its first 16 bytes held
    /// as two integers and in whole only where those are equal. The service sorts the devices
    /// whose latest samples are journaled, every second (45,000 in the soak, docs/performance.md
    /// "Soak"), and the writer a fences file's 100,000 rows at start: compared as strings, each
    /// comparison reads both ids' bytes through a closure.
    public func sortedByID() -> [ExactID] {
        let ids = Array(self)
        var keys: [(UInt64, UInt64, Int)] = []
        keys.reserveCapacity(ids.count)
        for (index, id) in ids.enumerated() {
            let key = id.prefixKey
            keys.append((key.0, key.1, index))
        }
        keys.sort { a, b in
            if a.0 != b.0 { return a.0 < b.0 }
            if a.1 != b.1 { return a.1 < b.1 }
            return ids[a.2] < ids[b.2]
        }
        return keys.map { ids[$0.2] }
    }
}

extension String {
    /// Whether two ids are the same bytes (docs/topics-and-payloads.md "Fences"): not Swift's canonical equivalence.
    public func isSameID(as other: String) -> Bool {
        ExactID(self) == ExactID(other)
    }
}

extension ExactID: ExpressibleByStringLiteral {
    /// An id written in code (tests, tables): the literal's own bytes.
    public init(stringLiteral value: String) {
        self.init(value)
    }
}
