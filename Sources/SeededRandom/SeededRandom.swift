/// xoshiro256** seeded through SplitMix64: fast, good statistics, and the same numbers on every
/// platform and Swift version (unlike `SystemRandomNumberGenerator`), so `--seed` reproduces runs.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    /// `stream` gives independent sequences from one seed (one per truck), so adding trucks does
    /// not change the numbers of the others.
    public init(seed: UInt64, stream: UInt64 = 0) {
        var mixer = SplitMix64(state: seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
        s0 = mixer.next()
        s1 = mixer.next()
        s2 = mixer.next()
        s3 = mixer.next()
        if s0 | s1 | s2 | s3 == 0 { s0 = 1 }  // the one state xoshiro cannot leave
    }

    public mutating func next() -> UInt64 {
        let result = rotl(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotl(s3, 45)
        return result
    }

    /// Uniform in [0, 1) with 53 random bits.
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    private func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 {
        (x << k) | (x >> (64 - k))
    }
}

/// SplitMix64: turns one 64-bit seed into well-spread state words.
struct SplitMix64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
