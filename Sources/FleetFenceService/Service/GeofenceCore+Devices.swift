import FleetFenceCodecs
import FleetFenceJournal
import GeofenceEngine

/// Forgetting devices (docs/operations.md "Limits and failures"): one silent for `geofence.forget_after_s`,
/// or one named by `fleetfence devices forget`. Its state leaves the journal, what is retained of
/// it is cleared, and if it reports again it is first sight.
extension GeofenceCore {
    /// Forgets `device`; nothing when the engine does not hold it.
    mutating func forget(device: String, reason: String, into effects: inout Effects) {
        // Its marks go before its place is freed: the next device there starts unmarked.
        guard let handle = engine.handle(ifHeld: device) else { return }
        dirtyDevices.unmark(handle)
        clockOnlyDevices.unmark(handle)
        changedViews.unmark(handle)
        guard let forgotten = engine.forgetDevice(device) else { return }
        if effects.changes.removedDevices.isEmpty { effects.forgetsBefore = counters.forgotten }
        counters.forgotten += 1
        effects.changes.removedDevices.append(device)
        // Empty retained messages clear what subscribers arriving later would find.
        effects.publish(layout.state(device: device), [], qos: 1, retain: true)
        for tour in forgotten.tours { effects.publish(layout.progress(device: device, tour: tour), [], qos: 1, retain: true) }
        integrationsForgot(device: device, into: &effects)
        effects.log(.info, "device forgotten", ["device": "\(device)", "reason": "\(reason)"])
    }

    /// Every device silent (wall clock) since before `now - forget_after_s`, a slice at a time:
    /// a scan of the devices, asked for now and then, never per sample.
    mutating func forgetSilent(now: Double, limit: Int) -> Effects {
        var effects = Effects()
        let cutoff = now - engine.settings.forgetAfterSeconds
        for device in engine.devicesSilent(before: cutoff).prefix(limit) {
            forget(device: device, reason: "silent for geofence.forget_after_s", into: &effects)
        }
        return effects
    }
}
