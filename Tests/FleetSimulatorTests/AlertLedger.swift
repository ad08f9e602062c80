import FleetFenceJournal
import FleetFenceTesting
@testable import FleetSimulator

/// Every alert a test subscriber saw on `<prefix>/alerts/#`, and what each instance says it did:
/// the alerts it committed to its journal and the devices it holds (docs/several-instances.md "Several instances").
struct AlertLedger: CustomStringConvertible {
    /// One instance's own account, read from its journal.
    struct Instance {
        var committed: [ReceivedAlert]
        var devices: Set<String>
    }

    private(set) var alerts: [ReceivedAlert] = []
    /// Payloads that are not alerts.
    private(set) var unreadable = 0
    let instances: [String: Instance]

    init(_ messages: [ReceivedMessage], instances: [String: Instance] = [:]) {
        self.instances = instances
        for message in messages {
            if let alert = try? ReceivedAlert.decode(message.payload) { alerts.append(alert) } else { unreadable += 1 }
        }
    }

    /// Alerts without an `instance` field.
    var withoutInstance: Int { alerts.filter { $0.instance == nil }.count }

    /// Each device's instances, as its alerts name them (`?` for none).
    var namedInstancesByDevice: [String: Set<String>] {
        alerts.reduce(into: [:]) { result, alert in
            result[alert.device, default: []].insert(alert.instance ?? "?")
        }
    }

    /// Each device's instances, as the instances' journals say: those that committed its alerts.
    var committingInstancesByDevice: [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for (name, instance) in instances {
            for alert in instance.committed { result[alert.device, default: []].insert(name) }
        }
        return result
    }

    /// Received alerts no instance committed.
    var uncommitted: [ReceivedAlert] {
        let committed = Set(instances.values.flatMap(\.committed).map(Self.identity))
        return alerts.filter { !committed.contains(Self.identity($0)) }
    }

    /// The same device and seq received with another content or instance: an alert sent twice. A
    /// QoS 1 redelivery repeats the alert exactly and is counted apart.
    var repeated: [String] {
        Dictionary(grouping: alerts.filter { $0.seq != nil }) { "\($0.device)#\($0.seq!)" }
            .filter { Set($0.value.map(Self.content)).count > 1 }.keys.sorted()
    }

    /// Each alert once: the first received of each device and seq. A QoS 1 redelivery after a
    /// fail-over repeats an alert exactly; one with other content is `repeated`'s to report. An
    /// alert without a seq is kept: nothing tells its copies apart from a second alert.
    var distinct: [ReceivedAlert] {
        var seen: Set<String> = []
        return alerts.filter { alert in alert.seq.map { seen.insert("\(alert.device)#\($0)").inserted } ?? true }
    }

    /// Exact copies of an alert received before (QoS 1 redeliveries after a fail-over).
    var redelivered: Int {
        alerts.count - Set(alerts.map(Self.content)).count
    }

    private static func content(_ alert: ReceivedAlert) -> String {
        var copy = alert
        copy.received = 0
        return "\(copy)"
    }

    private static func identity(_ alert: ReceivedAlert) -> String {
        "\(alert.device)#\(alert.seq ?? 0) \(alert.event) \(alert.fence) \(alert.at)"
    }

    var description: String {
        "\(alerts.count) alerts (\(withoutInstance) without instance, \(redelivered) redelivered, "
            + "repeated \(repeated.prefix(10)), \(uncommitted.count) committed by no instance); "
            + instances.sorted { $0.key < $1.key }.map { "\($0.key) holds \($0.value.devices.count) devices, committed \($0.value.committed.count)" }
                .joined(separator: "; ")
            + "; named by device: "
            + namedInstancesByDevice.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.sorted())" }.joined(separator: ", ")
    }
}

extension AlertLedger.Instance {
    /// What the instance whose journal is at `path` committed and holds; read once it stopped.
    init(journal path: String) throws {
        let journal = try Journal(path: path, logger: testLogger("journal"))
        defer { try? journal.close() }
        var query = EventQuery()
        query.limit = 1_000_000
        committed = try journal.events(query).events.compactMap { try? ReceivedAlert.decode($0.alertJSON) }
        devices = Set(try journal.loadDevices().map(\.device))
    }
}
