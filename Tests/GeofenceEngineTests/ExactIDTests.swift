import Foundation
import Testing

@testable import GeofenceEngine

/// docs/topics-and-payloads.md "Fences" and "Topics and payloads": ids are the exact bytes of their topic level. NFC and
/// NFD spellings of one name are two devices and two fences, each with its own state.
@Suite("Byte-exact ids")
struct ExactIDTests {
    let nfc = "Bus-M\u{00FC}ller"
    let nfd = "Bus-Mu\u{0308}ller"

    @Test func equalityHashingAndOrderAreByBytes() {
        #expect(nfc == nfd, "Swift's String calls them equal")
        #expect(ExactID(nfc) != ExactID(nfd))
        #expect(Set([ExactID(nfc), ExactID(nfd)]).count == 2)
        #expect(ExactID(nfd) < ExactID(nfc), "u (0x75) sorts before ü (0xC3 0xBC)")
        #expect(ExactID("a") < ExactID("b") && !(ExactID("b") < ExactID("a")) && ExactID("") < ExactID("a"))
        #expect(ExactID(nfc) == ExactID(String(decoding: Array(nfc.utf8), as: UTF8.self)))
        #expect(!nfc.isSameID(as: nfd) && nfc.isSameID(as: nfc))
    }

    /// `<` is the order of the bytes, prefixes first, for ids short enough to be stored inline
    /// and long ones, with bytes past 0x7F (a signed comparison would put them first).
    @Test func orderIsTheBytesOrder() {
        var random = SystemRandomNumberGenerator()
        let alphabet = ["a", "b", "", "z", "\u{00FC}", "\u{7F}", "-", "\u{1F69A}", "Z"]
        for _ in 0..<2_000 {
            let x = (0..<Int.random(in: 0...20, using: &random)).map { _ in alphabet.randomElement(using: &random)! }.joined()
            let y = (0..<Int.random(in: 0...20, using: &random)).map { _ in alphabet.randomElement(using: &random)! }.joined()
            #expect((ExactID(x) < ExactID(y)) == Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8)), "\(x) \(y)")
        }
    }

    /// `sortedByID()` is `sorted()`: ids shorter and longer than its 16-byte keys, ids that
    /// share those 16 bytes and differ after, prefixes of each other, zero bytes (a key's padding
    /// is zeros too), bytes past 0x7F, duplicates.
    @Test func sortedByIDIsTheBytesOrder() {
        var random = SystemRandomNumberGenerator()
        let alphabet = ["a", "b", "\u{0}", "z", "\u{00FC}", "\u{7F}", "-", "\u{1F69A}", "Z", "truck-000000000000"]
        for _ in 0..<200 {
            let ids = (0..<Int.random(in: 0...300, using: &random)).map { _ in
                ExactID((0..<Int.random(in: 0...6, using: &random)).map { _ in alphabet.randomElement(using: &random)! }.joined())
            }
            #expect(ids.sortedByID() == ids.sorted())
        }
        #expect([ExactID("ab\u{0}"), ExactID("ab")].sortedByID() == [ExactID("ab"), ExactID("ab\u{0}")])
        #expect([ExactID("truck-0000000000b"), ExactID("truck-0000000000a")].sortedByID().map(\.string) == ["truck-0000000000a", "truck-0000000000b"])
    }

    @Test func nfcAndNfdAreTwoDevicesWithIndependentState() throws {
        var h = try Harness([circle("depot", radius: 200)])
        h.feed(driveThrough(startingAt: 420, speed: 10, interval: 5, count: 12), device: nfc)
        h.feed([sample(destination(depot, bearing: 0, meters: 2_000), t: T0)], device: nfd)
        #expect(h.engine.deviceCount == 2)
        #expect(h.engine.insideFences(of: nfc) == ["depot"])
        #expect(h.engine.insideFences(of: nfd).isEmpty)
        #expect(h.engine.seq(of: nfc) == 1 && h.engine.seq(of: nfd) == 0)
        let enter = try #require(h.alerts.first)
        #expect(enter.device.utf8.elementsEqual(nfc.utf8))
        #expect(h.engine.deviceRecord(for: nfd)?.device.utf8.elementsEqual(nfd.utf8) == true)
        // And the NFD device's samples are its own: a time older than the NFC device's latest
        // (+55 s) is not stale for it.
        let outcome = h.engine.process(device: nfd, sample: sample(depot, t: T0 + 1), arrival: T0, into: &h.alerts)
        #expect(outcome.status == .accepted)
    }

    @Test func nfcAndNfdAreTwoFences() throws {
        var engine = GeofenceEngine()
        try engine.setFence(circle(nfc, radius: 100))
        let update = try engine.setFence(circle(nfd, at: destination(depot, bearing: 90, meters: 1_000), radius: 100))
        #expect(!update.replaced)
        #expect(engine.fenceCount == 2)
        #expect(engine.fence(id: nfd)?.definition.shape != engine.fence(id: nfc)?.definition.shape)
        engine.removeFence(id: nfd, now: T0)
        #expect(engine.fence(id: nfc) != nil && engine.fence(id: nfd) == nil)
    }

    @Test func aSnapshotKeepsBothDevicesApart() throws {
        var h = try Harness([circle("depot", radius: 200)])
        h.feed([sample(depot, t: T0)], device: nfc)
        h.feed([sample(destination(depot, bearing: 0, meters: 2_000), t: T0)], device: nfd)
        let restored = GeofenceEngine(settings: GeofenceSettings(), restoring: h.engine.snapshot())
        #expect(restored.deviceCount == 2)
        #expect(restored.insideFences(of: nfc) == ["depot"] && restored.insideFences(of: nfd).isEmpty)
    }
}
