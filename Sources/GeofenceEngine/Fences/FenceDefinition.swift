/// The events a fence can report.
public enum AlertEvent: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case enter, exit, dwell

    public static func < (lhs: AlertEvent, rhs: AlertEvent) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// The shape of a fence as its author wrote it.
public enum FenceShape: Sendable, Hashable, Codable {
    /// A circle: centre and radius in metres.
    case circle(center: Coordinate, radius: Double)
    /// One outer ring, closed or not; vertices as coordinates (already out of GeoJSON order).
    case polygon([Coordinate])
}

/// A fence as defined by a user, before validation and clamping.
public struct FenceDefinition: Sendable, Hashable, Codable {
    public var id: String
    public var name: String?
    public var description: String?
    public var shape: FenceShape
    /// Events to alert. `nil` means the default: enter and exit, plus dwell when `dwellSeconds` is set.
    public var notify: Set<AlertEvent>?
    /// Emit `dwell` once per stay after this many seconds inside.
    public var dwellSeconds: Double?

    public init(
        id: String, name: String? = nil, description: String? = nil, shape: FenceShape,
        notify: Set<AlertEvent>? = nil, dwellSeconds: Double? = nil
    ) {
        self.id = id
        self.name = name
        self.description = description
        self.shape = shape
        self.notify = notify
        self.dwellSeconds = dwellSeconds
    }

    /// The events this fence alerts, with the default applied.
    public var effectiveNotify: Set<AlertEvent> {
        if let notify { return notify }
        return dwellSeconds == nil ? [.enter, .exit] : [.enter, .exit, .dwell]
    }
}
