/// What every input's device id must be (docs/operations.md "Limits and failures"): its exact bytes, at most
/// 256 of them, and one topic level, since it becomes a level of the alert, state and errors topics.
public enum DeviceIDRules {
    public static let maxBytes = 256

    /// Why `id` cannot be a device id, or `nil` when it can.
    public static func problem(_ id: String) -> String? {
        if id.isEmpty { return "the device id is empty" }
        let bytes = id.utf8.count
        if bytes > maxBytes { return "device id is \(bytes) bytes long, at most \(maxBytes) are accepted" }
        return TopicLevel.problem(id, kind: "device id")
    }
}
