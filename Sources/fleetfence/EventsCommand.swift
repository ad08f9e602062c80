import ArgumentParser
import FleetFenceCodecs
import FleetFenceJournal
import FleetFenceService
import FleetFenceSettings
import Foundation
import GeofenceEngine

/// `fleetfence events`: the journal's history on the command line, also while the service runs
/// (docs/operations.md "Journal"): the same filters and order as `GET /api/events`.
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print the alerts journaled: which truck was at which fence, when.",
        discussion: """
            Filters repeat (--device a --device b matches either). Times are RFC 3339 or epoch seconds,
            on the alert's at: --since inclusive, --until exclusive. Ordered by at, then seq.
            The journal is read with a connection of its own: the service may keep running.
            """)

    @Option(help: "The journal [key journal.path, env FLEETFENCE_JOURNAL_PATH, default fleetfence.db]")
    var journal: String?
    @Option(name: .customLong("config"), help: "YAML config file to take journal.path from (default Config/fleetfence.yaml if present)")
    var configFile: String?
    @Option(help: "Only this device (repeatable)")
    var device: [String] = []
    @Option(help: "Only this fence (repeatable)")
    var fence: [String] = []
    @Option(help: "Only this event: enter, exit, dwell, speeding, stop_visited, stop_skipped, tour_completed (repeatable)")
    var event: [String] = []
    @Option(help: "From this time on (inclusive)")
    var since: String?
    @Option(help: "Before this time (exclusive)")
    var until: String?
    @Option(help: "At most this many alerts (default: all)")
    var limit: Int?
    @Option(help: "table, json (one alert per line, as published) or csv")
    var format: Format = .table

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json, csv
    }

    func validate() throws {
        for (name, value) in [("--since", since), ("--until", until)] {
            if let value, EventQuery.time(value) == nil {
                throw ValidationError("\(name) must be an RFC 3339 time or epoch seconds, got \(value)")
            }
        }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        // A misspelt event found nothing, silently, as if none had happened.
        let known = AlertEvent.allCases.map(\.rawValue)
        for name in event where !known.contains(name) {
            throw ValidationError("--event must be one of \(known.joined(separator: ", ")), got \(name)")
        }
    }

    func run() async throws {
        let path = try await journalPath()
        guard FileManager.default.fileExists(atPath: path) else {
            throw ValidationError("no journal at \(path) (give --journal)")
        }
        let history = try Journal(readingOnly: path)
        defer { try? history.close() }
        var query = EventQuery()
        query.devices = device
        query.fences = fence
        query.events = event
        query.since = since.flatMap(EventQuery.time)
        query.until = until.flatMap(EventQuery.time)
        var remaining = limit ?? .max
        var first = true
        let output = FileHandle.standardOutput
        repeat {
            query.limit = min(remaining, 10_000)
            let page = try history.events(query)
            output.write(Data(render(page.events, header: first)))
            first = false
            remaining -= page.events.count
            query.after = page.next
        } while query.after != nil && remaining > 0
    }

    /// The same precedence as `serve`: flag, variable, config file, default.
    private func journalPath() async throws -> String {
        var flags: [String: String] = [:]
        if let journal { flags[ConfigurationKey.journalPath.name] = journal }
        return try await ConfigurationLoader.forCommand(flags: flags, configFile: configFile).journalPath
    }

    private func render(_ events: [JournalTransition], header: Bool) -> [UInt8] {
        switch format {
        case .csv:
            let csv = EventsCSV.encode(events)
            // The header only once, however many pages.
            return header ? csv : Array(csv.drop { $0 != UInt8(ascii: "\n") }.dropFirst())
        case .json:
            return events.flatMap { $0.alertJSON + [UInt8(ascii: "\n")] }
        case .table:
            var lines = header ? [Self.row(["at", "event", "device", "fence", "name", "seq", "details"])] : []
            for event in events {
                var details: [String] = []
                if let duration = event.durationSeconds { details.append("duration \(Self.seconds(duration))") }
                if let dwell = event.dwellSeconds { details.append("dwell \(Self.seconds(dwell))") }
                if let reason = event.reason { details.append(reason) }
                lines.append(Self.row([
                    RFC3339.format(event.at), event.event, event.device, event.fence, event.name ?? "", String(event.seq),
                    details.joined(separator: ", "),
                ]))
            }
            return Array(lines.joined().utf8)
        }
    }

    private static let widths = [24, 15, 16, 16, 24, 6, 0]

    private static func row(_ fields: [String]) -> String {
        zip(fields, widths).map { field, width in
            field.count >= width ? field + " " : field + String(repeating: " ", count: width - field.count)
        }.joined().trimmingCharacters(in: .whitespaces) + "\n"
    }

    private static func seconds(_ value: Double) -> String {
        String(format: "%.1f s", value)
    }
}
