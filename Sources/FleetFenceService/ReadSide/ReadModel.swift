import FleetFenceCodecs
import FleetFenceJournal
import GeofenceEngine
import Synchronization

/// What readers (the HTTP interface, metrics, tests) see of the service, kept apart from the core
/// so that a reader never takes the core's lock while positions flow at the broker's rate.
///
/// Fed one way (docs/architecture.md "How it is built"): the journal's writer hands over each step once it is
/// committed (alerts, state changes, fences), so a reader never sees what the journal could
/// forget; the tick copies the devices that moved, once a second, a slice at a time with the
/// core's lock let go between slices. History beyond the recent alerts is the journal's: a reader
/// connection answers from it while the writer writes (SQLite's WAL).
public final class ReadModel: Sendable {
    public struct Counters: Sendable, Equatable {
        public var positions = 0
        /// Positions the rules took (not stale, not invalid).
        public var accepted = 0
        public var alerts = 0
        public var rejected = 0
        public var ignored = 0
        public var stale = 0
        /// Older than the latest and merged, or dropped as too late (docs/rules.md "Late samples").
        public var late = 0
        public var tooLate = 0
        public var inaccurate = 0
        public var fenceChanges = 0
        public var fenceErrors = 0
        public var devices = 0
        public var fences = 0
        public var alertsByEvent: [String: Int] = [:]
    }

    fileprivate struct State {
        // Keyed by ExactID: ids are told apart by their bytes (docs/operations.md "Limits and failures").
        var devices = DeviceViews()
        /// Device ids in order, for paging; rebuilt only when a device is added or removed.
        var order: [ExactID] = []
        var orderIsStale = false
        var fences: [ExactID: Fence] = [:]
        var fenceOrder: [ExactID]?
        var tours: [ExactID: TourDefinition] = [:]
        var counters = Counters()
        /// The latest alerts, oldest first, at most ``recentLimit``.
        var recent: [AlertRecord] = []
        /// Forgets committed since the views were last applied, by forget number. Views are taken
        /// under the core's lock and applied off it: a forget committing between would otherwise
        /// see its device's older view put back, shown until the next start.
        var forgetsCommitted: [(number: Int, device: ExactID)] = []
    }

    public static let recentLimit = 1_000
    private let state = Mutex(State())
    /// The live stream of what is committed, for the HTTP interface's `/api/stream`.
    public let feed = LiveFeed()

    public init() {}

    // MARK: Writing (the service's writer and tick)

    /// A batch of committed steps, in order: on the writer's thread, after publishing (the
    /// read side is one of the service's outputs).
    func committed(_ steps: [Effects]) {
        var events: [LiveFeed.Event] = []
        let following = feed.isActive
        state.withLock { state in
            for step in steps {
                // A fences file comes in steps of a thousand: grown one fence at a time, the table
                // rehashed itself at each doubling (perf, a fresh start with 100,000 fences: 6% of
                // the writer's samples).
                if step.heldFences.count > 1 { state.fences.reserveCapacity(state.fences.count + step.heldFences.count) }
                for fence in step.heldFences {
                    if state.fences.updateValue(fence, forKey: ExactID(fence.id)) == nil { state.fenceOrder = nil }
                    if following { events.append(Self.fenceEvent(fence)) }
                }
                for id in step.changes.removedFences where state.fences.removeValue(forKey: ExactID(id)) != nil {
                    state.fenceOrder = nil
                    if following { events.append(Self.fenceDeletedEvent(id)) }
                }
                for tour in step.heldTours { state.tours[ExactID(tour.id)] = tour }
                for id in step.changes.removedTours { state.tours[ExactID(id)] = nil }
                for (offset, device) in step.changes.removedDevices.enumerated() {
                    let key = ExactID(device)
                    if state.devices.remove(key) { state.orderIsStale = true }
                    state.forgetsCommitted.append((step.forgetsBefore + offset + 1, key))
                }
                for message in step.messages {
                    switch message.kind {
                    case let .alert(alert):
                        state.recent.append(alert)
                        if following { events.append(LiveFeed.Event(name: "alert", data: message.payload)) }
                    case let .state(change):
                        state.apply(change)
                        if following { events.append(LiveFeed.Event(name: "state", data: message.payload)) }
                    case .tourProgress:
                        if following { events.append(LiveFeed.Event(name: "tour", data: message.payload)) }
                    case .other:
                        break
                    }
                }
            }
            if state.recent.count > Self.recentLimit { state.recent.removeFirst(state.recent.count - Self.recentLimit) }
        }
        feed.send(events)
    }

    /// Devices whose position or fences changed, from the tick, taken when the core had made
    /// `forgets` forgets. Their movement reaches the live stream as `state` events at their
    /// latest position. A view of a device whose forget has committed since is older than the
    /// forget, and left out.
    func update(devices: [DeviceView], takenAfter forgets: Int) {
        var devices = devices
        state.withLock { state in
            if !state.forgetsCommitted.isEmpty {
                let forgotten = Set(state.forgetsCommitted.lazy.filter { $0.number > forgets }.map(\.device))
                if !forgotten.isEmpty { devices.removeAll { forgotten.contains(ExactID($0.device)) } }
                // Views taken later are all taken after these forgets.
                state.forgetsCommitted.removeAll { $0.number <= forgets }
            }
            for var view in devices {
                let key = ExactID(view.device)
                if let known = state.devices[key] {
                    // The state change's time and place come from the state messages.
                    view.at = known.at
                    view.lat = known.lat
                    view.lon = known.lon
                } else {
                    state.orderIsStale = true
                }
                state.devices.set(view, for: key)
            }
        }
        guard feed.isActive else { return }
        feed.send(devices.compactMap { view in
            guard let lat = view.lastLat, let lon = view.lastLon else { return nil }
            return LiveFeed.Event(
                name: "state",
                data: StatePayload.encode(device: view.device, inside: view.inside, at: view.lastSeen ?? 0, lat: lat, lon: lon))
        })
    }

    /// Every tour held, at start.
    func replace(tours: [TourDefinition]) {
        state.withLock { $0.tours = Dictionary(tours.map { (ExactID($0.id), $0) }, uniquingKeysWith: { _, last in last }) }
    }

    /// Every fence held, at start (then each committed step brings its changes).
    func replace(fences: [Fence]) {
        let byID = Dictionary(fences.map { (ExactID($0.id), $0) }, uniquingKeysWith: { _, last in last })
        state.withLock { state in
            state.fences = byID
            state.fenceOrder = nil
        }
    }

    /// A run's core numbers its forgets from 0 (``update(devices:takenAfter:)``).
    func coreStarted() {
        state.withLock { $0.forgetsCommitted = [] }
    }

    func update(counters: Counters) {
        state.withLock { $0.counters = counters }
    }

    private static func fenceEvent(_ fence: Fence) -> LiveFeed.Event {
        LiveFeed.Event(name: "fence", data: FenceFeatureEncoding.encode(fence))
    }

    private static func fenceDeletedEvent(_ id: String) -> LiveFeed.Event {
        var json = JSONWriter(capacity: 64)
        json.beginObject()
        json.key("id")
        json.string(id)
        json.key("deleted")
        json.bool(true)
        json.endObject()
        return LiveFeed.Event(name: "fence", data: json.bytes)
    }

    // MARK: Reading

    public var counters: Counters { state.withLock { $0.counters } }

    /// The fences held, by id.
    public var fences: [Fence] {
        state.withLock { state in
            let order = state.sortedFenceIDs()
            return order.compactMap { state.fences[$0] }
        }
    }

    public func fence(id: String) -> Fence? { state.withLock { $0.fences[ExactID(id)] } }

    /// The tours held, by id.
    public var tours: [TourDefinition] {
        state.withLock { $0.tours.sorted { $0.key < $1.key }.map(\.value) }
    }

    public func tour(id: String) -> TourDefinition? { state.withLock { $0.tours[ExactID(id)] } }
    public func device(_ id: String) -> DeviceView? { state.withLock { $0.devices[ExactID(id)] } }
    public var deviceCount: Int { state.withLock { $0.devices.count } }

    /// The heap the devices' views take (``AllocatedBytes``), walked a slice at a time so that
    /// readers wait for a slice at most.
    func countDeviceBytes() -> Int {
        var (bytes, next) = (0, Optional(0))
        while let from = next {
            let slice = state.withLock { state in
                let order = from == 0 ? AllocatedBytes.array(state.order) : 0
                let counted = state.devices.allocatedBytes(from: from, limit: MemoryReport.slice)
                return (counted.bytes + order, counted.next)
            }
            (bytes, next) = (bytes + slice.0, slice.1)
        }
        return bytes
    }

    /// Up to `limit` devices in id order (by bytes), starting after `cursor` (a device id; `nil`:
    /// from the start).
    public func devices(after cursor: String?, limit: Int) -> [DeviceView] {
        state.withLock { state in
            if state.orderIsStale {
                state.order = state.devices.ids.sorted()
                state.orderIsStale = false
            }
            let start = cursor.map { cursor in partitionPoint(state.order) { !(ExactID(cursor) < $0) } } ?? 0
            return state.order[start..<min(state.order.count, start + max(0, limit))].compactMap { state.devices[$0] }
        }
    }

    /// The latest alerts committed, oldest first.
    public func recentAlerts(limit: Int = ReadModel.recentLimit) -> [AlertRecord] {
        state.withLock { Array($0.recent.suffix(max(0, limit))) }
    }
}

extension ReadModel.State {
    fileprivate mutating func apply(_ change: DeviceStateChange) {
        let key = ExactID(change.device)
        let known = devices[key]
        if known == nil { orderIsStale = true }
        var view = known ?? DeviceView(
            device: change.device, inside: [], at: nil, lat: nil, lon: nil, lastSeen: change.at, lastLat: change.lat,
            lastLon: change.lon, seq: 0)
        view.inside = change.inside
        view.at = change.at
        view.lat = change.lat
        view.lon = change.lon
        devices.set(view, for: key)
    }

    fileprivate mutating func sortedFenceIDs() -> [ExactID] {
        if let fenceOrder { return fenceOrder }
        let order = fences.keys.sorted()
        fenceOrder = order
        return order
    }
}

/// The index of the first element for which `belongs` is false, in a collection where it holds
/// for a prefix.
private func partitionPoint(_ ids: [ExactID], _ belongs: (ExactID) -> Bool) -> Int {
    var low = 0
    var high = ids.count
    while low < high {
        let middle = (low + high) / 2
        if belongs(ids[middle]) { low = middle + 1 } else { high = middle }
    }
    return low
}
