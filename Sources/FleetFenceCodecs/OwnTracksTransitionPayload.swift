import GeofenceEngine

/// An alert of an OwnTracks device, as the OwnTracks apps and Recorder read a server-side
/// transition (docs/integrations.md "OwnTracks"): `_type: transition`, `enter` or `leave`, `desc` the fence's
/// name, `t: "c"` (a circular region's transition, which is what the apps show).
public enum OwnTracksTransitionPayload {
    /// `wtst`: OwnTracks identifies a waypoint by its creation time. A fence has none, so it is the
    /// FNV-1a 32-bit hash of the fence id, which stays the same for the fence's whole life, also
    /// across restarts and instances.
    public static func waypointTimestamp(fenceID: String) -> UInt64 {
        UInt64(fnv1a32(fenceID.utf8))
    }

    /// Nil for the events OwnTracks has no transition for (dwell, speeding, tours).
    public static func encode(_ transition: Transition, accuracy: Double?) -> [UInt8]? {
        let event: String
        switch transition.event {
        case .enter: event = "enter"
        case .exit: event = "leave"
        default: return nil
        }
        var json = JSONWriter(capacity: 256)
        json.beginObject()
        json.key("_type")
        json.string("transition")
        json.key("event")
        json.string(event)
        json.key("desc")
        json.string(AlertPayload.displayName(transition))
        json.key("tst")
        json.integer(UInt64(max(0, transition.at.rounded(.down))))
        json.key("wtst")
        json.integer(waypointTimestamp(fenceID: transition.fenceID))
        json.key("lat")
        json.number(transition.lat)
        json.key("lon")
        json.number(transition.lon)
        json.key("acc")
        json.number((accuracy ?? 0).rounded())
        json.key("t")
        json.string("c")
        json.endObject()
        return json.bytes
    }
}
