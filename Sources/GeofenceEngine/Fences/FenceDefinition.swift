/// The events FleetFence reports: a fence's crossings and dwells, speeding inside a fence, and a
/// tour's visits (docs/rules.md "The rules").
public enum AlertEvent: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case enter, exit, dwell
    case speeding
    case stopVisited = "stop_visited"
    case stopSkipped = "stop_skipped"
    case tourCompleted = "tour_completed"

    /// The events a fence's `notify` may name; the others are governed by their own keys
    /// (`speed_limit_kmh`, tours).
    public static let notifiable: Set<AlertEvent> = [.enter, .exit, .dwell]

    /// A tour's event rather than a fence's: published under the tour's progress topic.
    public var isTourEvent: Bool {
        switch self {
        case .stopVisited, .stopSkipped, .tourCompleted: true
        case .enter, .exit, .dwell, .speeding: false
        }
    }

    public static func < (lhs: AlertEvent, rhs: AlertEvent) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
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
    /// Glob patterns (`*`, `?`) on device ids: the devices this fence applies to.
    public var devices: [String]
    /// A device inside going faster than this (km/h) for `debounce_s` gets a `speeding` alert.
    public var speedLimitKmh: Double?
    /// Wall-clock time (seconds since the epoch) at which the fence is removed.
    public var expiresAt: Double?

    /// Every device: the `devices` a definition without the key has.
    public static let everyDevice = ["*"]

    public init(
        id: String, name: String? = nil, description: String? = nil, shape: FenceShape,
        notify: Set<AlertEvent>? = nil, dwellSeconds: Double? = nil, devices: [String] = FenceDefinition.everyDevice,
        speedLimitKmh: Double? = nil, expiresAt: Double? = nil
    ) {
        self.id = id
        self.name = name
        self.description = description
        self.shape = shape
        self.notify = notify
        self.dwellSeconds = dwellSeconds
        self.devices = devices
        self.speedLimitKmh = speedLimitKmh
        self.expiresAt = expiresAt
    }

    /// The events this fence alerts, with the default applied.
    public var effectiveNotify: Set<AlertEvent> {
        if let notify { return notify }
        return dwellSeconds == nil ? [.enter, .exit] : [.enter, .exit, .dwell]
    }
}
