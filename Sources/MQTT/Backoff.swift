/// Reconnect delays: `initial`, doubling per failed attempt, capped at `maximum`, and
/// back to `initial` once a connection succeeds. No jitter: one service instance per
/// broker connection has no thundering herd to spread, and fixed delays keep logs readable.
struct Backoff {
    let initial: Duration
    let maximum: Duration
    private(set) var upcoming: Duration

    init(initial: Duration, maximum: Duration) {
        self.initial = initial
        self.maximum = maximum
        self.upcoming = initial
    }

    /// The delay to wait now; the following one doubles.
    mutating func next() -> Duration {
        let delay = upcoming
        upcoming = min(upcoming * 2, maximum)
        return delay
    }

    mutating func reset() {
        upcoming = initial
    }
}
