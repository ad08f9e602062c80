import GeofenceEngine

/// An alert on its way out: the engine's transition and the payload encoded once from it. The
/// journal's row is made from it and the payload published is its bytes, so what the journal
/// holds is exactly what subscribers received.
public struct AlertRecord: Sendable {
    public var transition: Transition
    /// The alert as published (docs/topics-and-payloads.md "Topics and payloads").
    public var payload: [UInt8]
    /// Wall-clock arrival of the sample (or the tick) that confirmed it: its delay is measured from
    /// here to its publication. Not journaled.
    public var arrival: Double
    /// The webhooks this alert is queued for, in its own transaction (docs/webhooks.md "Webhooks"): the
    /// core decides, the journal's write inserts one outbox row per name.
    public var webhooks: [String]

    public init(transition: Transition, payload: [UInt8], arrival: Double = .nan, webhooks: [String] = []) {
        self.transition = transition
        self.payload = payload
        self.arrival = arrival
        self.webhooks = webhooks
    }
}

extension AlertRecord {
    /// In the column order of ``JournalSQL/transitionColumns``, as row `id`.
    func binds(id: Int64) -> [SQLiteData] {
        [
            .integer(id), .text(transition.device), .text(transition.fenceID), .text(transition.event.rawValue), .float(transition.at),
            .float(transition.confirmedAt), .float(transition.lat), .float(transition.lon), .integer(Int64(transition.seq)),
            transition.reason.map { .text($0) } ?? .null,
            transition.durationSeconds.map { .float($0) } ?? .null, transition.dwellSeconds.map { .float($0) } ?? .null,
            Self.payloadData(payload),
        ]
    }

    /// In the column order of ``JournalSQL/insertOutbox``. Confirmed at the arrival of what
    /// confirmed it (wall clock), which the delivery's delay is measured from.
    func outboxBinds(webhook: String, queuedAt: Double) -> [SQLiteData] {
        [
            .text(webhook), .text(transition.device), .integer(Int64(transition.seq)), .text(transition.event.rawValue),
            .blob(payload), .float(arrival.isFinite ? arrival : queuedAt), .float(queuedAt), .float(queuedAt),
        ]
    }

    /// Text when it round-trips exactly (valid UTF-8 without NUL), so JSON functions work on it; otherwise
    /// a blob, so the published bytes are still kept as they were.
    static func payloadData(_ bytes: [UInt8]) -> SQLiteData {
        if !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) {
            return .text(text)
        }
        return .blob(bytes)
    }
}
