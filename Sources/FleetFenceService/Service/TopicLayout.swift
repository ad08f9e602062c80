/// Every topic the service writes or reads besides positions, under `topics.prefix`.
public struct TopicLayout: Sendable, Hashable {
    public let prefix: String

    public init(prefix: String) {
        self.prefix = prefix
    }

    public func alert(device: String, fence: String, event: String) -> String {
        "\(prefix)/alerts/\(device)/\(fence)/\(event)"
    }

    public func state(device: String) -> String { "\(prefix)/state/\(device)" }
    public func fence(_ id: String) -> String { "\(prefix)/fences/\(id)" }
    public func errors(_ scope: String) -> String { "\(prefix)/errors/\(scope)" }
    public var status: String { "\(prefix)/status" }
    /// Where users set and delete fences at run time.
    public var fenceSetFilter: String { "\(prefix)/fences/+/set" }
}
