/// docs/rules.md "The rules", `expires_at`: at that wall-clock time a fence is removed and the devices
/// inside it exit with reason `fence_expired`. The engine has no clock: the caller hands its own
/// in, from its tick. Until then an expired fence says nothing to samples or silence.
extension GeofenceEngine {
    /// The earliest `expires_at` of the fences held, if any has one.
    public var nextExpiry: Double? { earliestExpiry.isFinite ? earliestExpiry : nil }

    /// Removes the fences whose `expires_at` is at or before `now`. Devices inside exit at the
    /// expiry (or their latest event time, if later); pending changes at those fences are dropped.
    @discardableResult
    public mutating func expireFences(now: Double) -> FenceRemoval {
        guard now >= earliestExpiry else { return FenceRemoval() }
        let due = expiries.filter { $0.value <= now }.map(\.key).sorted()
        return removeFences(slots: due, reason: Transition.Reason.fenceExpired) { $0.definition.expiresAt ?? now }
    }

    /// Keeps the table of expiring fences and its earliest time in step with fence `slot`.
    mutating func setExpiry(_ expiresAt: Double?, of slot: Int32) {
        let previous = expiries[slot]
        expiries[slot] = expiresAt
        if let expiresAt, expiresAt < earliestExpiry {
            earliestExpiry = expiresAt
        } else if previous != nil, previous == earliestExpiry {
            earliestExpiry = expiries.values.min() ?? .infinity
        }
    }
}
