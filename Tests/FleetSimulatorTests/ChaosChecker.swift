import Foundation

@testable import FleetSimulator

/// What a chaos run promises beyond the verify's score (docs/reliability.md), checked over
/// everything the run saw: the alerts delivered over MQTT, those POSTed to the webhook, the
/// journal's alerts and device states, and the retained state on the broker.
///
/// - every expected alert delivered over MQTT (the verify's `missed`), and every journaled alert
///   both over MQTT and to the webhook: each at least once;
/// - one content per `(device, seq)` wherever it shows (MQTT, webhook, journal): a repeat with the
///   same bytes is a QoS 1 redelivery or a webhook retry, allowed; other bytes are a conflict;
/// - no phantom: nothing the truth does not hold (the verify's `false`), nothing delivered that
///   the journal does not hold (an alert is published only after its row commits);
/// - `seq` contiguous per device from 1 across restarts: the journal holds every number up to
///   the highest seen anywhere;
/// - the retained state of each device lists the fences its journaled state is inside of.
struct ChaosChecker {
    /// An alert as one of the outputs carried it: its key and its exact bytes.
    struct Alert: Sendable, Hashable {
        var device: String
        var seq: UInt64
        var payload: [UInt8]

        /// `nil` for a payload that is no alert with a `seq`.
        init?(payload: [UInt8]) {
            guard let alert = try? ReceivedAlert.decode(payload), let seq = alert.seq else { return nil }
            self.init(device: alert.device, seq: seq, payload: payload)
        }

        init(device: String, seq: UInt64, payload: [UInt8]) {
            self.device = device
            self.seq = seq
            self.payload = payload
        }

        var key: Key { Key(device: device, seq: seq) }
        var text: String { String(decoding: payload, as: UTF8.self) }
    }

    struct Key: Sendable, Hashable, Comparable, CustomStringConvertible {
        var device: String
        var seq: UInt64
        static func < (a: Key, b: Key) -> Bool { (a.device, a.seq) < (b.device, b.seq) }
        var description: String { "\(device)/\(seq)" }
    }

    /// What ground truth expects, and what it found (from the verify's report).
    var expected = 0
    var missed: [String] = []
    var falseAlerts: [String] = []
    var mqtt: [Alert] = []
    var webhook: [Alert] = []
    var journal: [Alert] = []
    /// Payloads on an alert topic, or POSTed, that are no alert with a `seq`.
    var unreadable = 0
    /// Each device's fences inside, as the journal's last state and the broker's retained state say.
    var journalStates: [String: Set<String>] = [:]
    var retainedStates: [String: Set<String>] = [:]

    struct Verdict: Sendable {
        var expected = 0
        var missed = 0
        /// Distinct `(device, seq)` delivered over MQTT.
        var delivered = 0
        /// Repeats with the same bytes: over MQTT (QoS 1 redeliveries) and to the webhook (retries).
        var duplicates = 0
        var webhookDuplicates = 0
        var conflicting = 0
        var phantom = 0
        var gaps = 0
        var webhookMissing = 0
        var mqttMissing = 0
        var stateMismatch = 0
        var unreadable = 0
        /// One line per problem, the first few of each kind.
        var problems: [String] = []

        /// Nothing counted against a promise, and no other problem (a stop that was not clean).
        var passed: Bool {
            missed == 0 && conflicting == 0 && phantom == 0 && gaps == 0 && webhookMissing == 0 && mqttMissing == 0
                && stateMismatch == 0 && unreadable == 0 && problems.isEmpty
        }

        /// `expected=76 delivered=79 missed=0 dup=2 conflicting=0 phantom=0 gaps=0 webhook_missing=0 ...`
        var counts: String {
            "expected=\(expected) delivered=\(delivered) missed=\(missed) dup=\(duplicates) webhook_dup=\(webhookDuplicates) "
                + "conflicting=\(conflicting) phantom=\(phantom) gaps=\(gaps) webhook_missing=\(webhookMissing) "
                + "mqtt_missing=\(mqttMissing) state_mismatch=\(stateMismatch)"
                + (unreadable > 0 ? " unreadable=\(unreadable)" : "")
        }
    }

    func check() -> Verdict {
        var verdict = Verdict(expected: expected, missed: missed.count, unreadable: unreadable)
        func problem(_ kind: String, _ items: [String]) {
            guard !items.isEmpty else { return }
            verdict.problems.append("\(kind) (\(items.count)): " + items.prefix(10).joined(separator: "; ")
                + (items.count > 10 ? "; ..." : ""))
        }
        problem("missed", missed)
        problem("false (the truth does not hold them)", falseAlerts)
        if unreadable > 0 { problem("unreadable payloads", ["\(unreadable)"]) }

        let mqttByKey = Dictionary(grouping: mqtt, by: \.key)
        let webhookByKey = Dictionary(grouping: webhook, by: \.key)
        let journalByKey = Dictionary(grouping: journal, by: \.key)
        verdict.delivered = mqttByKey.count
        verdict.duplicates = mqtt.count - mqttByKey.count
        verdict.webhookDuplicates = webhook.count - webhookByKey.count

        // One content per key, everywhere; and the journal holds each key once.
        var conflicts: [String] = []
        for key in Set(mqttByKey.keys).union(webhookByKey.keys).union(journalByKey.keys).sorted() {
            let journaled = journalByKey[key] ?? []
            let contents = Set((mqttByKey[key] ?? []).map(\.payload) + (webhookByKey[key] ?? []).map(\.payload) + journaled.map(\.payload))
            if contents.count > 1 || journaled.count > 1 {
                conflicts.append("\(key): \(journaled.count) journal rows, contents " + contents.map { String(decoding: $0, as: UTF8.self) }.sorted().joined(separator: " | "))
            }
        }
        verdict.conflicting = conflicts.count
        problem("conflicting", conflicts)

        let unjournaled = Set(mqttByKey.keys).union(webhookByKey.keys).subtracting(journalByKey.keys).sorted()
        verdict.phantom = falseAlerts.count + unjournaled.count
        problem("delivered but not journaled", unjournaled.map { key in
            "\(key) " + ((mqttByKey[key] ?? webhookByKey[key])?.first?.text ?? "")
        })

        // Seq numbers: 1 up to the highest seen anywhere, each in the journal.
        var highest: [String: UInt64] = [:]
        for alert in mqtt + webhook + journal { highest[alert.device] = max(highest[alert.device] ?? 0, alert.seq) }
        var missing: [String] = []
        for (device, top) in highest.sorted(by: { $0.key < $1.key }) {
            let held = Set(journal.filter { $0.device == device }.map(\.seq))
            let absent = (1...max(1, top)).filter { !held.contains($0) }
            if !absent.isEmpty { missing.append("\(device) lacks seq \(absent.map(String.init).joined(separator: ",")) of 1...\(top)") }
            verdict.gaps += absent.count
        }
        problem("seq gaps in the journal", missing)

        let notOverMQTT = Set(journalByKey.keys).subtracting(mqttByKey.keys).sorted()
        verdict.mqttMissing = notOverMQTT.count
        problem("journaled, never delivered over MQTT", notOverMQTT.map { "\($0) \(journalByKey[$0]!.first!.text)" })
        let notToWebhook = Set(journalByKey.keys).subtracting(webhookByKey.keys).sorted()
        verdict.webhookMissing = notToWebhook.count
        problem("journaled, never POSTed to the webhook", notToWebhook.map { "\($0) \(journalByKey[$0]!.first!.text)" })

        var states: [String] = []
        for device in Set(journalStates.keys).union(retainedStates.keys).sorted() {
            let journaled = journalStates[device], retained = retainedStates[device]
            if journaled != retained {
                states.append("\(device): journal \(journaled.map { $0.sorted().description } ?? "none"), retained \(retained.map { $0.sorted().description } ?? "none")")
            }
        }
        verdict.stateMismatch = states.count
        problem("retained state differs from the journal's", states)
        return verdict
    }
}
