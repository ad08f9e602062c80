import GeofenceEngine

/// The retained fence on `<prefix>/fences/<fence>`: the fence as the service holds it, in the definition's
/// own keys, so that it can be sent back to `.../set` unchanged (docs/topics-and-payloads.md "Fences").
///
/// Keys: `id`, `name` and `description` (when set), the shape as `FenceDefinitionEncoding` writes it with the
/// effective `radius` or `buffer_m`, `notify` (the effective set, in the order enter, exit, dwell), `dwell_s`
/// (when set), `devices` (always), `speed_limit_kmh` and `expires_at` (when set), then `"clamped": true` and
/// `requested_radius` (a circle) or `requested_buffer_m` (a corridor) when the clamp changed it.
public enum FenceRegistryPayload {
    /// The entry of a fence as built.
    public static func encode(_ fence: Fence) -> [UInt8] {
        encode(
            definition: fence.definition, effectiveRadius: fence.effectiveRadius ?? fence.effectiveBuffer,
            requestedRadius: fence.clampedFrom, clamped: fence.isClamped)
    }

    /// `effectiveRadius`: a circle's radius or a corridor's buffer after the clamp; `requestedRadius`: the
    /// defined one, when clamped.
    public static func encode(
        definition: FenceDefinition, effectiveRadius: Double?, requestedRadius: Double?, clamped: Bool
    ) -> [UInt8] {
        var json = JSONWriter(capacity: 256)
        json.beginObject()
        FenceDefinitionEncoding.writeMembers(
            of: definition, size: effectiveRadius, notify: definition.effectiveNotify.sorted(), allKeys: true, into: &json)
        writeClamp(definition: definition, requested: requestedRadius, clamped: clamped, into: &json)
        json.endObject()
        return json.bytes
    }

    /// `"clamped": true` and the size as defined, named for the shape.
    static func writeClamp(definition: FenceDefinition, requested: Double?, clamped: Bool, into json: inout JSONWriter) {
        guard clamped else { return }
        json.key("clamped")
        json.bool(true)
        switch definition.shape {
        case let .circle(_, radius):
            json.key("requested_radius")
            json.number(requested ?? radius)
        case let .corridor(_, buffer):
            json.key("requested_buffer_m")
            json.number(requested ?? buffer)
        case .polygon, .multiPolygon:
            break
        }
    }
}
