import GeofenceEngine

/// The retained fence on `<prefix>/fences/<fence>`: the fence as the service holds it, in the definition's
/// own keys, so that it can be sent back to `.../set` unchanged.
///
/// Keys: `id`, `name` and `description` (when set), `lat`, `lon`, `radius` (the effective radius) or
/// `polygon` (`[[lon, lat], ...]`), `notify` (the effective set, in the order enter, exit, dwell), `dwell_s`
/// (when set), then `"clamped": true` and `requested_radius` when the radius was clamped.
public enum FenceRegistryPayload {
    /// The entry of a fence as built.
    public static func encode(_ fence: Fence) -> [UInt8] {
        encode(
            definition: fence.definition, effectiveRadius: fence.effectiveRadius, requestedRadius: fence.clampedFrom,
            clamped: fence.isClamped)
    }

    public static func encode(
        definition: FenceDefinition, effectiveRadius: Double?, requestedRadius: Double?, clamped: Bool
    ) -> [UInt8] {
        var json = JSONWriter(capacity: 256)
        json.beginObject()
        FenceDefinitionEncoding.writeMembers(
            of: definition, radius: effectiveRadius, notify: definition.effectiveNotify.sorted(), into: &json)
        if clamped {
            json.key("clamped")
            json.bool(true)
            if let requested = requestedRadius ?? definedRadius(definition) {
                json.key("requested_radius")
                json.number(requested)
            }
        }
        json.endObject()
        return json.bytes
    }

    private static func definedRadius(_ definition: FenceDefinition) -> Double? {
        if case let .circle(_, radius) = definition.shape { return radius }
        return nil
    }
}
