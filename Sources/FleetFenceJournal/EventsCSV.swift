import FleetFenceCodecs
import Foundation

/// The history as CSV (RFC 4180), one alert a row, with a header row; times in RFC 3339.
public enum EventsCSV {
    public static let header = ["event", "device", "fence", "name", "at", "confirmed_at", "lat", "lon", "seq", "dwell_s", "duration_s", "reason"]

    public static func encode(_ events: [JournalTransition]) -> [UInt8] {
        var out = Array((header.joined(separator: ",") + "\r\n").utf8)
        out.reserveCapacity(events.count * 140 + out.count)
        for event in events {
            let fields: [String] = [
                event.event, event.device, event.fence, event.name ?? "", RFC3339.format(event.at),
                RFC3339.format(event.confirmedAt), number(event.lat), number(event.lon), String(event.seq),
                // As the alert says them: the journal keeps them unrounded.
                event.dwellSeconds.map(duration) ?? "", event.durationSeconds.map(duration) ?? "", event.reason ?? "",
            ]
            out += Array((fields.map(quoted).joined(separator: ",") + "\r\n").utf8)
        }
        return out
    }

    private static func duration(_ seconds: Double) -> String {
        number(AlertPayload.roundedToMilliseconds(seconds))
    }

    private static func number(_ value: Double) -> String {
        var bytes: [UInt8] = []
        JSONWriter.appendNumber(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Quoted when it holds a comma, a quote or a line break; quotes doubled.
    private static func quoted(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
