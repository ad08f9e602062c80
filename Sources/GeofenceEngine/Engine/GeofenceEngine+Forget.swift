/// Forgetting devices that have been silent for long (the service's `geofence.forget_after_s`):
/// all their state goes, with no alert, and their place is given to the next new device.
extension GeofenceEngine {
    /// What a forgotten device held, so that the caller can clear what it published of it.
    public struct ForgottenDevice: Sendable, Hashable {
        /// The fences it was inside.
        public var inside: [String]
        /// The tours it had progress in.
        public var tours: [String]
    }

    /// Removes `device` entirely; nil when the engine does not hold it. Handles to it become
    /// invalid. If it sends again, it is first sight.
    @discardableResult
    public mutating func forgetDevice(_ device: String) -> ForgottenDevice? {
        guard let slot = devices.slot(of: device) else { return nil }
        let forgotten = ForgottenDevice(
            inside: insideFences(slot: slot),
            tours: (record(of: slot)?.tours.map(\.tour) ?? []).sorted { ExactID($0) < ExactID($1) })
        let index = devices.record[Int(slot)]
        if index >= 0 {
            records.remove(index)
            devices.record[Int(slot)] = -1
        }
        devicesAwaitingSilence.remove(slot)
        devicesWithOpenBacklog.remove(slot)
        devicesKeepingAnOlderPart.remove(slot)
        if devices.history[Int(slot)] >= 0 {
            histories.remove(devices.history[Int(slot)])
            devices.history[Int(slot)] = -1
        }
        candidateCaches.forget(Int(slot))
        devices.remove(slot)
        return forgotten
    }

    /// Devices whose latest accepted sample arrived (wall clock) before `cutoff`, or that never
    /// sent one. A scan of one column, for a caller that asks now and then, not per sample.
    public func devicesSilent(before cutoff: Double) -> [String] {
        var silent: [String] = []
        for slot in devices.lastHeard.indices where devices.live[slot] && devices.lastHeard[slot] < cutoff {
            silent.append(devices.ids[slot])
        }
        return silent
    }

    /// The wall-clock arrival of the device's latest accepted sample; nil before one.
    public func lastHeard(of device: String) -> Double? {
        devices.slot(of: device).flatMap { devices.lastHeard[Int($0)].isFinite ? devices.lastHeard[Int($0)] : nil }
    }
}
