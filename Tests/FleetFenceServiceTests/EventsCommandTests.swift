import FleetFenceTesting
import Foundation
import LocalBroker
import Testing

/// `fleetfence events`: the history on the command line, read while the service runs (docs/operations.md
/// "Journal").
@Suite("fleetfence events", .timeLimit(.minutes(1)))
struct EventsCommandTests {
    @Test func printsTheHistoryFilteredInEveryFormatWhileTheServiceRuns() async throws {
        try await withService { h in
            for device in ["truck-1", "truck-2"] {
                try await h.position(device, north: 300, ts: T)
                try await h.position(device, north: 100, ts: T + 10)
                try await h.position(device, north: 100, ts: T + 12)
            }
            try await h.position("truck-1", north: 300, ts: T + 20)
            try await h.position("truck-1", north: 300, ts: T + 23)
            _ = await h.waitForAlerts("truck-1", count: 2)
            _ = await h.waitForAlerts("truck-2", count: 1)
            let binary = try FleetFenceExecutable.locate()
            func events(_ arguments: [String]) async throws -> ProcessResult {
                try await runProcess(binary, ["events", "--journal", h.journalPath] + arguments, timeout: .seconds(20))
            }

            let json = try await events(["--format", "json", "--device", "truck-1"])
            #expect(json.status == 0, "\(json.errorOutput)")
            let lines = json.output.split(separator: "\n").map { JSONObject(Array($0.utf8)) }
            #expect(lines.map { $0?.string("event") } == ["enter", "exit"])
            // Exactly as published.
            #expect(lines.first??.text == h.alerts("truck-1").first?.json.text)

            let csv = try await events(["--format", "csv", "--event", "enter"])
            let rows = csv.output.split(separator: "\r\n")
            #expect(rows.first == "event,device,fence,name,at,confirmed_at,lat,lon,seq,dwell_s,duration_s,reason")
            #expect(rows.dropFirst().map { $0.split(separator: ",")[1] } == ["truck-1", "truck-2"])

            let table = try await events(["--since", rfc3339(T + 15), "--limit", "5"])
            #expect(table.status == 0)
            #expect(table.output.contains("exit") && table.output.contains("truck-1") && !table.output.contains("enter "))

            let bad = try await events(["--since", "yesterday"])
            #expect(bad.status != 0)
            #expect(bad.errorOutput.contains("--since"))
            // A misspelt event is refused, not answered with an empty history.
            let misspelt = try await events(["--event", "entered"])
            #expect(misspelt.status != 0 && misspelt.errorOutput.contains("--event") && misspelt.errorOutput.contains("entered"))
            // A configuration that cannot be read is a usage error, as for `serve`.
            let noConfig = try await events(["--config", h.journalPath + ".absent.yaml"])
            #expect(noConfig.status == 64 && noConfig.errorOutput.contains("does not exist"), "\(noConfig)")
        }
    }
}
