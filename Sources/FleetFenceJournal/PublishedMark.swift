/// How far the broker has acknowledged what the service published: every alert up to
/// `alertID` (the journal's row id, in commit order), and the retained state of every device
/// whose row was last written before `time` (wall clock, as the rows' `updated_at`).
///
/// Journaled in the writer's transactions as it moves; at start, the alerts after it are
/// published again and the states of the devices written since (docs/reliability.md "What is
/// promised"): a `kill -9` then loses none of what libmosquitto still held, at the cost of a
/// repeat with the same bytes that receivers drop by `(device, seq)`.
public struct PublishedMark: Sendable, Hashable {
    public var alertID: Int64
    public var time: Double

    public init(alertID: Int64, time: Double) {
        self.alertID = alertID
        self.time = time
    }

    static let key = "published_through"

    var encoded: String { "\(alertID) \(time)" }

    init?(encoded: String) {
        let parts = encoded.split(separator: " ")
        guard parts.count == 2, let alertID = Int64(parts[0]), let time = Double(parts[1]) else { return nil }
        self.init(alertID: alertID, time: time)
    }
}

/// A journaled alert as it is published again: its topic is made from these by the service.
public struct UnpublishedAlert: Sendable, Hashable {
    public var id: Int64
    public var device: String
    public var fence: String
    public var event: String
    public var payload: [UInt8]
}

extension Journal {
    /// The mark last journaled; `nil` in a journal no build with the mark has written.
    public func publishedMark() throws -> PublishedMark? {
        try metaValue(PublishedMark.key).flatMap(PublishedMark.init(encoded:))
    }

    /// The alerts after `id`, in commit order.
    public func alerts(after id: Int64) throws -> [UnpublishedAlert] {
        let rows = try locked {
            try db.run("SELECT id, device, fence, event, alert FROM transitions WHERE id > ? ORDER BY id", [.integer(id)])
        }
        return try rows.map { row in
            UnpublishedAlert(
                id: try row.int64("id", in: "transitions"), device: try row.text("device", in: "transitions"),
                fence: try row.text("fence", in: "transitions"), event: try row.text("event", in: "transitions"),
                payload: try row.bytes("alert", in: "transitions"))
        }
    }

    /// The row id of the last alert written: ids are given in commit order and never reused.
    public var lastAlertID: Int64 { alertIDs.withLock { $0 } }

    static func statement(for mark: PublishedMark) -> (sql: String, binds: [SQLiteData]) {
        ("INSERT OR REPLACE INTO journal_meta (key, value) VALUES (?, ?)", [.text(PublishedMark.key), .text(mark.encoded)])
    }
}
