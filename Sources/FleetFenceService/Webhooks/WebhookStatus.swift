import FleetFenceJournal
import Foundation

/// One webhook as `GET /api/webhooks` shows it (docs/webhooks.md "Webhooks"): never its secret.
public struct WebhookStatus: Sendable, Equatable {
    public var name: String
    public var url: String
    public var queued: Int
    /// Since this start of the service.
    public var delivered: Int
    public var retrying: Int
    public var dead: Int
    public var lastError: String?
    public var lastDeliveredAt: Double?
    public var nextAttemptAt: Double?

    /// The URL without a password it may carry (`https://user:secret@host/...`).
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "redacted"
        return components.string ?? url
    }
}

/// A page of dead letters, and the cursor of the next (nil on the last).
public struct WebhookDeadPage: Sendable {
    public var dead: [WebhookDeadLetter]
    public var next: Int64?
}
