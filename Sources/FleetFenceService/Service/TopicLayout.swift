/// Every topic the service writes or reads besides positions, under `topics.prefix`.
public struct TopicLayout: Sendable, Hashable {
    public let prefix: String
    /// `instance.name`: several instances on one broker each say whether they are up.
    public let instance: String?

    public init(prefix: String, instance: String? = nil) {
        self.prefix = prefix
        self.instance = instance
    }

    public func alert(device: String, fence: String, event: String) -> String {
        "\(prefix)/alerts/\(device)/\(fence)/\(event)"
    }

    public func state(device: String) -> String { "\(prefix)/state/\(device)" }
    public func fence(_ id: String) -> String { "\(prefix)/fences/\(id)" }
    public func errors(_ scope: String) -> String { "\(prefix)/errors/\(scope)" }
    /// Home Assistant's view of a device (docs/integrations.md "Home Assistant").
    public func homeAssistantState(device: String) -> String { "\(prefix)/ha/\(device)/state" }
    public func homeAssistantAttributes(device: String) -> String { "\(prefix)/ha/\(device)/attributes" }
    /// `<prefix>/status`, or `<prefix>/status/<instance>` (docs/several-instances.md "Several instances").
    public var status: String { instance.map { "\(prefix)/status/\($0)" } ?? "\(prefix)/status" }
    /// Every instance's status, followed by named instances to agree on who publishes the registry.
    public var instanceStatusFilter: String { "\(prefix)/status/+" }
    public func tour(_ id: String) -> String { "\(prefix)/tours/\(id)" }
    /// A device's retained progress in a tour, and its tour events (docs/rules.md "Tours").
    public func progress(device: String, tour: String) -> String { "\(prefix)/progress/\(device)/\(tour)" }
    public func progress(device: String, tour: String, event: String) -> String {
        "\(prefix)/progress/\(device)/\(tour)/\(event)"
    }
    /// Where users set and delete tours, and forget devices.
    public var tourSetFilter: String { "\(prefix)/tours/+/set" }
    public var deviceForgetFilter: String { "\(prefix)/devices/+/forget" }
    public func deviceForget(_ device: String) -> String { "\(prefix)/devices/\(device)/forget" }
    /// Where users set and delete fences at run time.
    public var fenceSetFilter: String { "\(prefix)/fences/+/set" }
}
