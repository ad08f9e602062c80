import GeofenceEngine

/// The read side's devices: compact rows in one array, found by id through an index. A dictionary
/// of whole `DeviceView`s cost about 300 bytes a device (fleetbench's scale phase, 1,000,000
/// devices: 922 MB resident against 568 MB without the read side); rows without optionals and
/// without a copy of the id cost about a third of that, and an `IDIndex` instead of a dictionary
/// of ids 25 bytes less.
struct DeviceViews {
    private(set) var ids: [ExactID] = []
    private var rows: [Row] = []
    private var index = IDIndex()

    /// A `DeviceView` without its id; NaN stands for a time or place not known yet.
    private struct Row {
        var inside: [String]
        var at, lat, lon, lastSeen, lastLat, lastLon: Double
        var seq: UInt64

        init(_ view: DeviceView) {
            inside = view.inside
            at = view.at ?? .nan
            lat = view.lat ?? .nan
            lon = view.lon ?? .nan
            lastSeen = view.lastSeen ?? .nan
            lastLat = view.lastLat ?? .nan
            lastLon = view.lastLon ?? .nan
            seq = view.seq
        }

        func view(of id: ExactID) -> DeviceView {
            func known(_ value: Double) -> Double? { value.isNaN ? nil : value }
            return DeviceView(
                device: id.string, inside: inside, at: known(at), lat: known(lat), lon: known(lon),
                lastSeen: known(lastSeen), lastLat: known(lastLat), lastLon: known(lastLon), seq: seq)
        }
    }

    var count: Int { ids.count }

    /// The heap of rows `from..<from + limit` (``AllocatedBytes``), and the row to count next, nil
    /// after the last; at row 0 the arrays and the index too. Ids and the fence ids in `inside` are
    /// the engine's strings, shared (a view is made from the engine's record), and not counted again.
    func allocatedBytes(from: Int, limit: Int) -> (bytes: Int, next: Int?) {
        var bytes = from == 0 ? AllocatedBytes.array(ids) + AllocatedBytes.array(rows) + index.allocatedBytes : 0
        let end = from + min(max(0, rows.count - from), limit)
        for slot in from..<end { bytes += AllocatedBytes.array(rows[slot].inside) }
        return (bytes, end < rows.count ? end : nil)
    }

    subscript(id: ExactID) -> DeviceView? {
        slot(of: id).map { rows[Int($0)].view(of: id) }
    }

    private func slot(of id: ExactID) -> Int32? {
        index.slot(of: id) { ids[Int($0)] == id }
    }

    /// Adds or replaces a device's view; returns whether it is new.
    @discardableResult
    mutating func set(_ view: DeviceView, for id: ExactID) -> Bool {
        if let slot = slot(of: id) {
            rows[Int(slot)] = Row(view)
            return false
        }
        index.insert(id, at: Int32(ids.count))
        ids.append(id)
        rows.append(Row(view))
        return true
    }

    /// Removes a device; the last row takes its place. Returns whether it was there.
    @discardableResult
    mutating func remove(_ id: ExactID) -> Bool {
        guard let slot = index.remove(id, where: { ids[Int($0)] == id }) else { return false }
        let last = ids.count - 1
        if Int(slot) != last {
            ids[Int(slot)] = ids[last]
            rows[Int(slot)] = rows[last]
            index.move(ids[Int(slot)], from: Int32(last), to: slot)
        }
        ids.removeLast()
        rows.removeLast()
        return true
    }
}
