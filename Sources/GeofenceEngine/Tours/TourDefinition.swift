/// A tour: stops (fence ids) that matching devices visit, in order or in any order
/// (docs/rules.md "Tours").
public struct TourDefinition: Sendable, Hashable, Codable {
    public var id: String
    public var name: String?
    /// Glob patterns (`*`, `?`) on device ids: the devices this tour applies to.
    public var devices: [String]
    /// Fence ids. A stop naming a fence that does not exist waits for it.
    public var stops: [String]
    /// Whether the stops must be visited in their order; an unordered tour is done when every
    /// stop has been visited.
    public var ordered: Bool

    public init(
        id: String, name: String? = nil, devices: [String] = FenceDefinition.everyDevice, stops: [String],
        ordered: Bool = true
    ) {
        self.id = id
        self.name = name
        self.devices = devices
        self.stops = stops
        self.ordered = ordered
    }
}
