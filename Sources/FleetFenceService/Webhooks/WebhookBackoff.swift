/// How long a failed delivery waits before its next attempt (docs/webhooks.md "Webhooks"): doubling from
/// `minimum` to `maximum`, each wait drawn between it and twice it, at most `maximum` (jitter), so
/// that the retries of many devices spread out instead of arriving at a recovering receiver at
/// once. Drawn between half and all of it, the first wait was always `minimum` (half was below it):
/// every device failing at once retried in the same millisecond. A draw past `maximum` is drawn
/// again between four fifths of it and all of it: capped alone, every wait at the cap was exactly
/// `maximum`, and the devices of a receiver down for long retried in step again.
public struct WebhookBackoff: Sendable, Equatable {
    public var minimum: Double
    public var maximum: Double

    /// 1 s to 5 min. Tests shorten `minimum` so that a retry takes a fraction of a second.
    public init(minimum: Double = 1, maximum: Double = 300) {
        self.minimum = minimum
        self.maximum = max(minimum, maximum)
    }

    /// The wait after the `failures`-th failed attempt; `unit` in [0, 1) draws the jitter. A
    /// receiver's `Retry-After` is the least wait, up to an hour: honoured, but neither a busy loop
    /// (taken alone, `Retry-After: 0` on every answer was a request a second for `max_age_s`) nor
    /// a queue parked for good.
    public func delay(afterFailures failures: Int, retryAfter: Double? = nil, unit: Double = Double.random(in: 0..<1)) -> Double {
        let exponent = Double(min(max(failures - 1, 0), 30))
        let base = min(maximum, minimum * Self.power(exponent))
        let drawn = base * (1 + unit)
        let wait = drawn < maximum ? drawn : maximum * (0.8 + 0.2 * unit)
        return max(wait, min(retryAfter ?? 0, 3_600))
    }

    private static func power(_ exponent: Double) -> Double {
        var value = 1.0
        for _ in 0..<Int(exponent) { value *= 2 }
        return value
    }
}
