import FleetFenceJournal
import GeofenceEngine
import Synchronization

/// What readers (the HTTP API, metrics, tests) see of the service, kept apart from the core so
/// that a reader never takes the core's lock while positions flow at the broker's rate.
///
/// Fed one way: the tick copies the devices that changed since the last tick (in slices, the
/// core's lock let go between them) and the fences when they changed; the journal's writer adds
/// each alert once it is committed, so a reader never sees an alert the journal could forget.
/// History beyond the recent alerts is the journal's: ``Journal`` answers from its own
/// connection (SQLite's WAL lets it read while the writer writes).
public final class ReadModel: Sendable {
    public struct Counters: Sendable, Equatable {
        public var positions = 0
        public var alerts = 0
        public var rejected = 0
        public var ignored = 0
        public var stale = 0
        public var inaccurate = 0
        public var fenceChanges = 0
        public var fenceErrors = 0
        public var devices = 0
        public var fences = 0
    }

    private struct State {
        var devices: [String: DeviceView] = [:]
        /// Device ids in order, for paging; rebuilt only when a device is added.
        var order: [String] = []
        var orderIsStale = false
        var fences: [Fence] = []
        var counters = Counters()
        /// The latest alerts, oldest first, at most ``recentLimit``.
        var recent: [AlertRecord] = []
    }

    public static let recentLimit = 1_000
    private let state = Mutex(State())

    public init() {}

    // MARK: Writing (the service's tick and writer)

    func update(devices: [DeviceView]) {
        guard !devices.isEmpty else { return }
        state.withLock { state in
            for view in devices where state.devices.updateValue(view, forKey: view.device) == nil {
                state.orderIsStale = true
            }
        }
    }

    func update(fences: [Fence]) {
        let sorted = fences.sorted { $0.id < $1.id }
        state.withLock { $0.fences = sorted }
    }

    func update(counters: Counters) {
        state.withLock { $0.counters = counters }
    }

    func committed(_ alerts: [AlertRecord]) {
        guard !alerts.isEmpty else { return }
        state.withLock { state in
            state.recent += alerts
            if state.recent.count > Self.recentLimit { state.recent.removeFirst(state.recent.count - Self.recentLimit) }
        }
    }

    // MARK: Reading

    public var counters: Counters { state.withLock { $0.counters } }
    public var fences: [Fence] { state.withLock { $0.fences } }
    public func fence(id: String) -> Fence? { state.withLock { state in state.fences.first { $0.id == id } } }
    public func device(_ id: String) -> DeviceView? { state.withLock { $0.devices[id] } }
    public var deviceCount: Int { state.withLock { $0.devices.count } }

    /// Up to `limit` devices in id order, starting after `cursor` (a device id; `nil`: from the start).
    public func devices(after cursor: String?, limit: Int) -> [DeviceView] {
        state.withLock { state in
            if state.orderIsStale {
                state.order = state.devices.keys.sorted()
                state.orderIsStale = false
            }
            let start = cursor.map { cursor in partitionPoint(state.order) { $0 <= cursor } } ?? 0
            return state.order[start..<min(state.order.count, start + max(0, limit))].compactMap { state.devices[$0] }
        }
    }

    /// The latest alerts committed, oldest first.
    public func recentAlerts(limit: Int = ReadModel.recentLimit) -> [AlertRecord] {
        state.withLock { Array($0.recent.suffix(max(0, limit))) }
    }
}

/// The index of the first element for which `belongs` is false, in a collection where it holds
/// for a prefix.
private func partitionPoint(_ ids: [String], _ belongs: (String) -> Bool) -> Int {
    var low = 0
    var high = ids.count
    while low < high {
        let middle = (low + high) / 2
        if belongs(ids[middle]) { low = middle + 1 } else { high = middle }
    }
    return low
}
