import SeededRandom

/// Small seeded edits of valid JSON, most of which break it: the parser's and the position
/// scanner's fuzz tests draw their inputs from the same edits, with their own favourite bytes
/// and near-miss tokens.
struct ByteMutator {
    /// Bytes drawn more often than random ones.
    var interesting: [UInt8]
    /// Text that is almost right somewhere in a document.
    var tokens: [String]

    func randomByte(_ rng: inout SeededRandom) -> UInt8 {
        Bool.random(using: &rng) ? interesting.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng)
    }

    func mutate(_ input: [UInt8], using rng: inout SeededRandom) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let at = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<8, using: &rng) {
            case 0 where !bytes.isEmpty: bytes[at] = randomByte(&rng)
            case 1 where !bytes.isEmpty: bytes[at] ^= 1 << UInt8.random(in: 0...7, using: &rng)
            case 2: bytes.insert(randomByte(&rng), at: at)
            case 3 where !bytes.isEmpty: bytes.remove(at: at)
            case 4: bytes.removeLast(Int.random(in: 0...bytes.count, using: &rng))
            case 5 where !bytes.isEmpty:
                // Repeat a slice: repeated keys, doubled digits, nested copies.
                let end = min(bytes.count, at + Int.random(in: 0...12, using: &rng))
                bytes.insert(contentsOf: bytes[at..<end], at: Int.random(in: 0...bytes.count, using: &rng))
            case 6:
                bytes.insert(contentsOf: Array(tokens.randomElement(using: &rng)!.utf8), at: at)
            default:
                if !bytes.isEmpty { bytes.swapAt(at, Int.random(in: 0..<bytes.count, using: &rng)) }
            }
        }
        return bytes
    }
}
