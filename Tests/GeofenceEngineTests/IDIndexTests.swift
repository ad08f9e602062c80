import SeededRandom
import Testing

@testable import GeofenceEngine

/// `IDIndex` against a dictionary, over a table that keeps its ids as the engine's and the read
/// side's do: inserts, removals and moves in a seeded order, through growth and wrap-around.
struct IDIndexTests {
    /// A table of ids with an index, as `DeviceViews` keeps one: a removed row's place is taken
    /// by the last row.
    private struct Table {
        var ids: [ExactID] = []
        var index = IDIndex()

        func slot(of id: ExactID) -> Int32? { index.slot(of: id) { ids[Int($0)] == id } }

        mutating func add(_ id: ExactID) {
            index.insert(id, at: Int32(ids.count))
            ids.append(id)
        }

        mutating func remove(_ id: ExactID) -> Bool {
            guard let slot = index.remove(id, where: { ids[Int($0)] == id }) else { return false }
            let last = ids.count - 1
            if Int(slot) != last {
                ids[Int(slot)] = ids[last]
                index.move(ids[Int(slot)], from: Int32(last), to: slot)
            }
            ids.removeLast()
            return true
        }
    }

    @Test(arguments: [1 as UInt64, 2, 3])
    func agreesWithADictionaryThroughGrowthAndRemovals(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var table = Table()
        var model: Set<ExactID> = []
        // Few distinct ids at first (a small table, removals wrapping around its end), then many.
        for step in 0..<60_000 {
            let range = step < 20_000 ? 40 : 30_000
            let id = ExactID("dev-\(Int.random(in: 0..<range, using: &random))")
            if Int.random(in: 0..<3, using: &random) == 0 {
                let removed = table.remove(id)
                #expect(removed == (model.remove(id) != nil))
            } else if table.slot(of: id) == nil {
                #expect(!model.contains(id))
                table.add(id)
                model.insert(id)
            }
            if step % 5_000 == 0 || step < 20_000 && step % 97 == 0 { Self.expectSame(table, model) }
        }
        Self.expectSame(table, model)
        // Emptied, then filled again.
        for id in model {
            let removed = table.remove(id)
            #expect(removed)
        }
        #expect(table.index.count == 0)
        #expect(table.slot(of: "dev-1") == nil)
        table.add("dev-1")
        #expect(table.slot(of: "dev-1") == 0)
    }

    @Test func idsAreTheirBytesThroughGrowth() {
        var table = Table()
        table.add("Bus-M\u{FC}ller")
        #expect(table.slot(of: "Bus-Mu\u{308}ller") == nil)
        table.add("Bus-Mu\u{308}ller")
        #expect(table.slot(of: "Bus-M\u{FC}ller") == 0)
        #expect(table.slot(of: "Bus-Mu\u{308}ller") == 1)
        for n in 0..<1_000 { table.add(ExactID("t\(n)")) }
        #expect(table.index.count == 1_002)
        for n in 0..<1_000 { #expect(table.slot(of: ExactID("t\(n)")) == Int32(n + 2)) }
        #expect(table.slot(of: "Bus-M\u{FC}ller") == 0)
    }

    /// Two ids whose 32-bit hashes are equal (found among 300,000, about ten such pairs with
    /// this process's seed): each is found by its own bytes, and either can go first.
    @Test func idsOfTheSameHashAreToldApartByTheirBytes() throws {
        var byHash: [UInt32: ExactID] = [:]
        var pair: (ExactID, ExactID)?
        for n in 0..<300_000 {
            let id = ExactID("c\(n)")
            if let other = byHash.updateValue(id, forKey: IDIndex.hash(id)) {
                pair = (other, id)
                break
            }
        }
        let (first, second) = try #require(pair)
        for removedFirst in [true, false] {
            var table = Table()
            table.add(first)
            table.add(second)
            #expect(table.slot(of: first) == 0)
            #expect(table.slot(of: second) == 1)
            let removed = table.remove(removedFirst ? first : second)
            #expect(removed)
            #expect(table.slot(of: removedFirst ? second : first) == 0)
            #expect(table.slot(of: removedFirst ? first : second) == nil)
        }
    }

    private static func expectSame(_ table: Table, _ model: Set<ExactID>) {
        #expect(table.index.count == model.count)
        #expect(Set(table.ids) == model)
        for (place, id) in table.ids.enumerated() { #expect(table.slot(of: id) == Int32(place)) }
    }
}
