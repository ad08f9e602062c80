import FleetFenceCodecs

/// The history of alerts, as the HTTP interface's `/api/events` and `fleetfence events` page
/// through it (docs/http.md "The HTTP interface"): filtered, ordered by `at`, then `seq`, in pages.
public struct EventQuery: Sendable, Equatable {
    /// Each filter matches any of its values; an empty one does not filter.
    public var devices: [String] = []
    public var fences: [String] = []
    public var events: [String] = []
    /// On the alert's `at`: `since` inclusive, `until` exclusive.
    public var since: Double?
    public var until: Double?
    /// Where the previous page ended.
    public var after: EventCursor?
    public var limit = 1_000

    public init() {}

    /// A time as `since` and `until` take it: RFC 3339, or seconds since the epoch.
    public static func time(_ text: String) -> Double? {
        if let seconds = Double(text), seconds.isFinite { return seconds }
        return RFC3339.parse(text)
    }
}

/// A place in the history's order: `at`, `seq`, and the row, which break every tie. Written as
/// text for a query string: `<at>_<seq>_<row>`.
public struct EventCursor: Sendable, Equatable, CustomStringConvertible {
    public var at: Double
    public var seq: Int64
    public var row: Int64

    public init(at: Double, seq: Int64, row: Int64) {
        self.at = at
        self.seq = seq
        self.row = row
    }

    public init?(_ text: String) {
        let parts = text.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 3, let at = Double(parts[0]), at.isFinite, let seq = Int64(parts[1]),
            let row = Int64(parts[2])
        else { return nil }
        self.init(at: at, seq: seq, row: row)
    }

    /// `Double.description` reads back to the same value, so the cursor is exact.
    public var description: String { "\(at)_\(seq)_\(row)" }
}

/// One page: the alerts, and where the next page starts (nil on the last).
public struct EventPage: Sendable {
    public var events: [JournalTransition]
    public var next: EventCursor?
}

extension Journal {
    public func events(_ query: EventQuery) throws -> EventPage {
        let limit = max(1, query.limit)
        var conditions: [String] = []
        var binds: [SQLiteData] = []
        func any(_ column: String, _ values: [String]) {
            guard !values.isEmpty else { return }
            conditions.append("\(column) IN (" + Array(repeating: "?", count: values.count).joined(separator: ", ") + ")")
            binds += values.map { .text($0) }
        }
        any("device", query.devices)
        any("fence", query.fences)
        any("event", query.events)
        // On the `at` as published, rounded to the millisecond: an alert is found by its own
        // published `at`, though the journal keeps it finer. The first condition is the index's
        // range, a little wide; the second decides.
        if let since = query.since {
            let millis = Self.publishedMillisBound(since)
            conditions.append("at >= ? AND at * 1000.0 >= ?")
            binds += [.float((millis - 1) / 1000), .float(millis)]
        }
        if let until = query.until {
            let millis = Self.publishedMillisBound(until)
            conditions.append("at < ? AND at * 1000.0 < ?")
            binds += [.float((millis + 1) / 1000), .float(millis)]
        }
        if let after = query.after {
            conditions.append("(at, seq, id) > (?, ?, ?)")
            binds += [.float(after.at), .integer(after.seq), .integer(after.row)]
        }
        // One more than asked: whether there is a next page, without a count.
        binds.append(.integer(Int64(limit) + 1))
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let sql = """
            SELECT id, \(JournalSQL.transitionColumns.joined(separator: ", ")), CASE WHEN json_valid(alert) THEN json_extract(alert, '$.name') END AS name
            FROM transitions \(filter) ORDER BY at, seq, id LIMIT ?
            """
        let rows = try locked { try db.run(sql, binds) }
        var events = try rows.prefix(limit).map(JournalTransition.init(row:))
        events.reserveCapacity(limit)
        let next = rows.count > limit ? events.last.map { EventCursor(at: $0.at, seq: $0.seq, row: $0.row) } : nil
        return EventPage(events: events, next: next)
    }

    /// `at * 1000` from which an alert's published `at` (milliseconds rounded to nearest, half away
    /// from zero, as `RFC3339.format` writes it) is at or after `time`.
    static func publishedMillisBound(_ time: Double) -> Double {
        (time * 1000).rounded(.up) - 0.5
    }

    /// Deletes up to `limit` alerts older than `cutoff` (by `at`), oldest first; how many went.
    /// A little at a time, so that retention never holds the writer up for long.
    @discardableResult
    public func prune(before cutoff: Double, limit: Int) throws -> Int {
        try locked {
            try db.run(
                "DELETE FROM transitions WHERE id IN (SELECT id FROM transitions WHERE at < ? ORDER BY at LIMIT ?)",
                [.float(cutoff), .integer(Int64(limit))])
            return db.changes
        }
    }
}
