/// How long a failed delivery waits before its next attempt (docs/webhooks.md "Webhooks"): doubling from
/// `minimum` to `maximum`, each wait drawn between it and twice it, at most `maximum` (jitter), so
/// that the retries of many devices spread out instead of arriving at a recovering receiver at
/// once. Drawn between half and all of it, the first wait was always `minimum` (half was below it):
/// every device failing at once retried in the same millisecond.
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
        return max(min(maximum, base * (1 + unit)), min(retryAfter ?? 0, 3_600))
    }

    private static func power(_ exponent: Double) -> Double {
        var value = 1.0
        for _ in 0..<Int(exponent) { value *= 2 }
        return value
    }
}
