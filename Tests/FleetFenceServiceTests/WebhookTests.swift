import Crypto
@testable import FleetFenceService
import FleetFenceTesting
import Foundation
import Synchronization
import Testing

/// Webhooks against a real receiver on a loopback port, beside a real mosquitto (docs/webhooks.md
/// "Webhooks"): the payload and headers, the signature, filters, retries, dead letters and their
/// redelivery, each device's order, a receiver down and back, and bad configuration.
@Suite("Webhooks", .timeLimit(.minutes(2)))
struct WebhookTests {
    /// Retries a fraction of a second apart, so that a retry test takes a second, not minutes.
    static func options(_ webhooks: [WebhookSettings], backoff: WebhookBackoff = WebhookBackoff(minimum: 0.1, maximum: 0.4))
        -> HarnessOptions
    {
        var options = HarnessOptions()
        options.http = .routed
        options.configText = configText(webhooks)
        options.webhookBackoff = backoff
        return options
    }

    /// The config file's `webhooks` list of `webhooks`: the service reads them from the file alone,
    /// in-process as for a process. Every scalar quoted (a bare `*` would be a YAML alias).
    static func configText(_ webhooks: [WebhookSettings]) -> String {
        func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        func list(_ items: [String]) -> String { "[" + items.map(quoted).joined(separator: ", ") + "]" }
        var lines = ["webhooks:"]
        for webhook in webhooks {
            lines.append("  - name: \(quoted(webhook.name))")
            lines.append("    url: \(quoted(webhook.url))")
            if !webhook.events.isEmpty { lines.append("    events: \(list(webhook.events.sorted()))") }
            lines.append("    devices: \(list(webhook.devices))")
            lines.append("    fences: \(list(webhook.fences))")
            if let secretFile = webhook.secretFile { lines.append("    secret_file: \(quoted(secretFile))") }
            lines.append("    timeout_s: \(webhook.timeoutSeconds)")
            lines.append("    max_age_s: \(webhook.maxAgeSeconds)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `device` outside, then inside the depot: one `enter` (after the 2 s debounce).
    static func enter(_ h: ServiceHarness, _ device: String, at start: Double = T) async throws {
        try await h.position(device, north: 300, ts: start)
        try await h.position(device, north: 100, ts: start + 10)
        try await h.position(device, north: 100, ts: start + 12)
    }

    /// Then out again: one `exit`.
    static func exit(_ h: ServiceHarness, _ device: String, at start: Double = T + 20) async throws {
        try await h.position(device, north: 300, ts: start)
        try await h.position(device, north: 300, ts: start + 3)
    }

    static func webhook(_ name: String, _ receiver: WebhookReceiver) -> WebhookSettings {
        WebhookSettings(name: name, url: receiver.url)
    }

    /// The `/api/webhooks` entry of `name`.
    static func status(_ http: some HTTPRequesting, _ name: String) async throws -> [String: Any]? {
        let list = try await http.get("/api/webhooks").json?.object["webhooks"] as? [[String: Any]]
        return list?.first { $0["name"] as? String == name }
    }

    @Test func aDeliveryIsThePublishedAlertWithItsHeadersAndAVerifiedSignature() async throws {
        let receiver = try await WebhookReceiver.start()
        defer { Task { await receiver.stop() } }
        try await withTemporaryDirectory { directory in
            let secretFile = directory + "/secret"
            let secret = Array("s3cr3t key\n".utf8)
            try Data(secret).write(to: URL(fileURLWithPath: secretFile))
            var webhook = Self.webhook("ops", receiver)
            webhook.secretFile = secretFile
            try await withRoutedHTTP(Self.options([webhook])) { h, http in
                try await Self.enter(h, "truck-1")
                let alert = try #require(await h.waitForAlerts("truck-1", count: 1).first)
                let request = try #require(await receiver.waitForRequests(1).first)
                // Byte for byte what MQTT subscribers got.
                #expect(request.body == alert.message.payload)
                #expect(request.path == "/hook")
                #expect(request.headers["content-type"] == "application/json")
                #expect(request.headers["fleetfence-event"] == "enter")
                #expect(request.headers["fleetfence-delivery"] == "truck-1/\(try #require(alert.seq))")
                let timestamp = try #require(request.headers["fleetfence-timestamp"])
                let sent = try #require(Double(timestamp))
                #expect(abs(sent - Date().timeIntervalSince1970) < 30)
                // Computed here with swift-crypto, from the secret file's bytes exactly.
                let mac = HMAC<SHA256>.authenticationCode(
                    for: Array((timestamp + ".").utf8) + request.body, using: SymmetricKey(data: secret))
                let hex = mac.map { String(format: "%02x", $0) }.joined()
                #expect(request.headers["fleetfence-signature"] == "sha256=" + hex)

                #expect(await eventuallyAsync { (try? await Self.status(http, "ops"))?["delivered"] as? Int == 1 })
                let status = try #require(try await Self.status(http, "ops"))
                #expect(status["url"] as? String == receiver.url)
                #expect(status["queued"] as? Int == 0 && status["retrying"] as? Int == 0 && status["dead"] as? Int == 0)
                #expect(status["last_delivered_at"] is String)
                #expect(!(try await http.get("/api/webhooks").text.contains("s3cr3t")))
                let metrics = try await http.get("/metrics").text
                #expect(metrics.split(separator: "\n").contains { line in
                    line.hasPrefix("fleetfence_webhook_deliveries_total{") && line.contains(#"webhook="ops""#)
                        && line.contains(#"outcome="delivered""#) && line.hasSuffix(" 1")
                })
                #expect(metrics.contains("fleetfence_webhook_seconds_bucket{"))
                // Counted once a second.
                #expect(await eventuallyAsync {
                    (try? await http.get("/metrics").text)?.contains(#"fleetfence_webhook_queued{webhook="ops"} 0"#) == true
                })
            }
        }
        // Delivered once: no repeat after the 2xx.
        #expect(receiver.requests.count == 1)
    }

    /// A user and password in the URL go as Basic authorization, as curl sends them, and never
    /// show in the API.
    @Test func aURLsCredentialsAreSentAsBasicAuthorization() async throws {
        let receiver = try await WebhookReceiver.start()
        defer { Task { await receiver.stop() } }
        let url = "http://ops:pw%3A1@127.0.0.1:\(receiver.port)/hook"
        try await withRoutedHTTP(Self.options([WebhookSettings(name: "ops", url: url)])) { h, http in
            try await Self.enter(h, "truck-1")
            let request = try #require(await receiver.waitForRequests(1).first)
            // "ops:pw:1", the colon decoded from the URL.
            #expect(request.headers["authorization"] == "Basic b3BzOnB3OjE=")
            #expect(!(try await http.get("/api/webhooks").text.contains("pw%3A1")))
        }
    }

    @Test func eventsDevicesAndFencesFilterWhatIsQueued() async throws {
        let filtered = try await WebhookReceiver.start()
        let everything = try await WebhookReceiver.start()
        defer { Task { await filtered.stop(); await everything.stop() } }
        var enters = Self.webhook("enters", filtered)
        enters.events = ["enter"]
        enters.devices = ["truck-*"]
        var elsewhere = Self.webhook("elsewhere", filtered)
        elsewhere.fences = ["yard*"]
        try await withService(Self.options([enters, elsewhere, Self.webhook("all", everything)])) { h in
            try await Self.enter(h, "truck-1")
            try await Self.exit(h, "truck-1")
            try await Self.enter(h, "van-1")
            // Everything: truck-1 enter and exit, van-1 enter.
            let all = await everything.waitForRequests(3)
            #expect(all.count == 3)
            await filtered.waitForRequests(1)
            try await Task.sleep(for: .milliseconds(500))
            #expect(filtered.requests.map { $0.headers["fleetfence-event"] ?? "" } == ["enter"])
            #expect(filtered.requests.first?.headers["fleetfence-delivery"]?.hasPrefix("truck-1/") == true)
        }
    }

    @Test func fiveHundredsAreRetriedWithTheSameDeliveryThenDelivered() async throws {
        let receiver = try await WebhookReceiver.start { _, count in
            WebhookReceiver.Answer(status: count < 2 ? 503 : 200)
        }
        defer { Task { await receiver.stop() } }
        try await withRoutedHTTP(Self.options([Self.webhook("ops", receiver)])) { h, http in
            try await Self.enter(h, "truck-1")
            let requests = await receiver.waitForRequests(3)
            #expect(requests.count == 3)
            #expect(Set(requests.map { $0.headers["fleetfence-delivery"] ?? "" }).count == 1)
            #expect(Set(requests.map(\.body)).count == 1)
            #expect(await eventuallyAsync { (try? await Self.status(http, "ops"))?["delivered"] as? Int == 1 })
            let status = try #require(try await Self.status(http, "ops"))
            #expect(status["last_error"] as? String == "HTTP 503")
            #expect(status["queued"] as? Int == 0 && status["dead"] as? Int == 0)
            let metrics = try await http.get("/metrics").text
            #expect(metrics.split(separator: "\n").contains { line in
                line.contains("fleetfence_webhook_deliveries_total{") && line.contains(#"outcome="retried""#) && line.hasSuffix(" 2")
            })
            try await Task.sleep(for: .milliseconds(500))
            #expect(receiver.requests.count == 3)
        }
    }

    @Test func a410IsDeadLetteredAndARedeliveryQueuesItAgain() async throws {
        let receiver = try await WebhookReceiver.start { _, _ in WebhookReceiver.Answer(status: 410) }
        defer { Task { await receiver.stop() } }
        try await withRoutedHTTP(Self.options([Self.webhook("ops", receiver)])) { h, http in
            try await Self.enter(h, "truck-1")
            let alert = try #require(await h.waitForAlerts("truck-1", count: 1).first)
            #expect(await eventuallyAsync { (try? await Self.status(http, "ops"))?["dead"] as? Int == 1 })
            // Given up at once: a 410 is not retried.
            #expect(receiver.requests.count == 1)
            let page = try await http.get("/api/webhooks/ops/dead")
            #expect(page.status == 200, "\(page)")
            let dead = try #require(page.json?.object["dead"] as? [[String: Any]])
            #expect(dead.count == 1)
            #expect(dead.first?["error"] as? String == "HTTP 410")
            #expect(dead.first?["attempts"] as? Int == 1)
            #expect(dead.first?["first_attempt_at"] is String && dead.first?["last_attempt_at"] is String)
            #expect((dead.first?["event"] as? [String: Any])?["seq"] as? Int == alert.seq)
            #expect(page.json?.object["next"] is NSNull)
            #expect(try await http.get("/api/webhooks/nobody/dead").status == 404)
            // Paged as /api/events: pages up to 10,000.
            #expect(try await http.get("/api/webhooks/ops/dead?limit=5000").json?.object["dead"] is [Any])
            #expect(try await http.get("/api/webhooks/ops/dead?limit=10001").status == 400)
            #expect(try await http.request("POST", "/api/webhooks/nobody/redeliver").status == 404)
            #expect(try await http.get("/api/webhooks/ops/redeliver").status == 405)
            let oversized = try await http.request("POST", "/api/webhooks/ops/redeliver", body: Data(repeating: 0x20, count: (1 << 20) + 1))
            #expect(oversized.status == 413, "a body over 1 MiB is refused as on every write, and requeues nothing")

            receiver.answer { _, _ in WebhookReceiver.Answer(status: 202) }
            let requeued = try await http.request("POST", "/api/webhooks/ops/redeliver")
            #expect(requeued.status == 202, "\(requeued)")
            #expect(requeued.json?.int("requeued") == 1)
            let requests = await receiver.waitForRequests(2)
            #expect(requests.count == 2)
            #expect(requests.map { $0.headers["fleetfence-delivery"] ?? "" } == Array(repeating: "truck-1/\(alert.seq ?? -1)", count: 2))
            #expect(await eventuallyAsync { (try? await Self.status(http, "ops"))?["delivered"] as? Int == 1 })
            let after = try #require(try await http.get("/api/webhooks/ops/dead").json?.object["dead"] as? [Any])
            #expect(after.isEmpty)
        }
    }

    /// A restart forgets no failure: `last_error` is the journal's latest until this run's first.
    @Test func theLastErrorIsStillSaidAfterARestart() async throws {
        let receiver = try await WebhookReceiver.start { _, _ in WebhookReceiver.Answer(status: 410) }
        defer { Task { await receiver.stop() } }
        try await withService(Self.options([Self.webhook("ops", receiver)])) { h in
            try await Self.enter(h, "truck-1")
            try await h.routedHTTP { http in
                #expect(await eventuallyAsync { (try? await Self.status(http, "ops"))?["dead"] as? Int == 1 })
            }
            #expect(await h.service?.terminate() == 0)
            try await h.startService()
            try await h.routedHTTP { http in
                let status = try #require(try await Self.status(http, "ops"))
                #expect(status["last_error"] as? String == "HTTP 410", "\(status)")
                // Delivered once the receiver takes it: the error is kept, as in a run without a
                // restart (read from the failing rows each time, it went with them).
                receiver.answer { _, _ in WebhookReceiver.Answer(status: 204) }
                #expect(try await http.request("POST", "/api/webhooks/ops/redeliver").status == 202)
                #expect(await eventuallyAsync { (try? await Self.status(http, "ops"))?["delivered"] as? Int == 1 })
                let after = try #require(try await Self.status(http, "ops"))
                #expect(after["last_error"] as? String == "HTTP 410" && after["dead"] as? Int == 0, "\(after)")
            }
        }
    }

    @Test func eachDevicesEventsGoInOrderAndOtherDevicesDoNotWait() async throws {
        // truck-1's first attempt is held and fails: its exit must wait; van-1 must not.
        let receiver = try await WebhookReceiver.start()
        defer { Task { await receiver.stop() } }
        // Once failed, truck-1's enter succeeds.
        let failedOnce = Mutex(false)
        receiver.answer { request, _ in
            let isTruckEnter = request.headers["fleetfence-delivery"]?.hasPrefix("truck-1/") == true
                && request.headers["fleetfence-event"] == "enter"
            if isTruckEnter, failedOnce.withLock({ done in defer { done = true }; return !done }) {
                // Held until van-1's request came: which van-1 could not send if it waited for truck-1.
                return WebhookReceiver.Answer(status: 503) { received in
                    received.contains { $0.headers["fleetfence-delivery"]?.hasPrefix("van-1/") == true }
                }
            }
            return WebhookReceiver.Answer(status: 204)
        }
        try await withService(Self.options([Self.webhook("ops", receiver)])) { h in
            try await Self.enter(h, "truck-1")
            try await Self.exit(h, "truck-1")
            try await Self.enter(h, "van-1")
            let requests = await receiver.waitForRequests(4)
            #expect(requests.count == 4)
            let truck = requests.filter { $0.headers["fleetfence-delivery"]?.hasPrefix("truck-1/") == true }
            #expect(truck.map { $0.headers["fleetfence-event"] ?? "" } == ["enter", "enter", "exit"])
            let seqs = truck.compactMap { $0.headers["fleetfence-delivery"]?.split(separator: "/").last.flatMap { Int($0) } }
            #expect(seqs.count == 3 && seqs[0] == seqs[1] && seqs[1] < seqs[2])
            // van-1 went while truck-1's enter was failing, before its retry.
            let vanIndex = try #require(requests.firstIndex { $0.headers["fleetfence-delivery"]?.hasPrefix("van-1/") == true })
            let truckIndices = requests.indices.filter { requests[$0].headers["fleetfence-delivery"]?.hasPrefix("truck-1/") == true }
            let retryIndex = try #require(truckIndices.dropFirst().first)
            #expect(vanIndex < retryIndex)
        }
    }

    /// Two webhooks on one host and port: eight requests of one held by a slow receiver leave the
    /// other's request its own connection. With AsyncHTTPClient's pool at 8 a host, the other
    /// webhook waited for them, timed out and was dead-lettered unsent.
    @Test func aSlowWebhookDoesNotHoldUpAnotherOnTheSameHost() async throws {
        let hogs = (1...WebhookWorker.maxInFlight).map { "hog-\($0)" }
        let receiver = try await WebhookReceiver.start()
        defer { Task { await receiver.stop() } }
        receiver.answer { request, _ in
            guard request.headers["fleetfence-delivery"]?.hasPrefix("hog-") == true else { return WebhookReceiver.Answer(status: 204) }
            // Held until the other webhook's request came (10 s at most): which it cannot while
            // these hold every connection to the host.
            return WebhookReceiver.Answer(status: 204) { received in
                received.contains { $0.headers["fleetfence-delivery"]?.hasPrefix("solo-") == true }
            }
        }
        var hog = Self.webhook("hog", receiver)
        hog.devices = ["hog-*"]
        hog.timeoutSeconds = 30
        var solo = Self.webhook("solo", receiver)
        solo.devices = ["solo-*"]
        try await withService(Self.options([hog, solo])) { h in
            for device in hogs { try await Self.enter(h, device) }
            #expect(await receiver.waitForRequests(hogs.count).count == hogs.count)
            try await Self.enter(h, "solo-1")
            let requests = await receiver.waitForRequests(hogs.count + 1)
            let first = try #require(requests.first)
            let soloRequest = try #require(requests.first { $0.headers["fleetfence-delivery"]?.hasPrefix("solo-") == true })
            // Starved, it came once the hogs' 10 s were up.
            #expect(soloRequest.at - first.at < .seconds(8))
        }
    }

    @Test func aReceiverDownGetsEverythingInOrderWhenItReturnsAndReadinessStays() async throws {
        let refusing = try RefusingPort()
        try await withRoutedHTTP(Self.options([WebhookSettings(name: "ops", url: refusing.url)])) { h, http in
            try await Self.enter(h, "truck-1")
            try await Self.exit(h, "truck-1")
            try await Self.enter(h, "truck-1", at: T + 40)
            _ = await h.waitForAlerts("truck-1", count: 3)
            #expect(await eventuallyAsync {
                let status = try? await Self.status(http, "ops")
                return status?["queued"] as? Int == 3 && status?["retrying"] as? Int == 1
            })
            let status = try #require(try await Self.status(http, "ops"))
            #expect(status["last_error"] as? String == "connection failed: Connection refused (errno 111)", "\(status)")
            #expect(status["next_attempt_at"] is String)
            #expect(try await http.get("/readyz").status == 200)

            refusing.release()
            let receiver = try await WebhookReceiver.start(port: refusing.port)
            defer { Task { await receiver.stop() } }
            let requests = await receiver.waitForRequests(3)
            #expect(requests.map { $0.headers["fleetfence-event"] ?? "" } == ["enter", "exit", "enter"])
            let seqs = requests.compactMap { $0.headers["fleetfence-delivery"]?.split(separator: "/").last.flatMap { Int($0) } }
            #expect(seqs == seqs.sorted() && Set(seqs).count == 3)
            #expect(await eventuallyAsync { (try? await Self.status(http, "ops"))?["queued"] as? Int == 0 })
        }
    }

    @Test func badWebhookConfigurationIsRefusedAtStart() async throws {
        try await withTemporaryDirectory { directory in
            func load(_ yaml: String) async throws -> ServiceConfiguration {
                let path = directory + "/fleetfence.yaml"
                try yaml.write(toFile: path, atomically: true, encoding: .utf8)
                return try await ConfigurationLoader.load(flags: [:], environment: [:], configFile: path)
            }
            func refusal(_ yaml: String) async -> String? {
                do {
                    _ = try await load(yaml)
                    return nil
                } catch {
                    return "\(error)"
                }
            }
            // A good list: defaults filled in, and the file's other keys still read.
            let good = try await load("""
                topics:
                  prefix: custom
                webhooks:
                  - name: ops
                    url: https://example.com/hooks
                    events: [enter, stop_visited]
                    timeout_s: 3
                """)
            #expect(good.prefix == "custom")
            #expect(good.webhooks == [
                WebhookSettings(name: "ops", url: "https://example.com/hooks", events: ["enter", "stop_visited"], timeoutSeconds: 3)
            ])
            #expect(good.webhooks.first?.maxAgeSeconds == 86_400 && good.webhooks.first?.devices == ["*"])
            #expect(!good.warnings.contains { $0.contains("webhooks") })
            // The rest of the file as written: an empty string stays empty (http off), lists stay lists.
            let rest = try await load("""
                http:
                  listen: ""
                broker:
                  url: [mqtt://a.example:1883, mqtt://b.example:1883]
                webhooks:
                  - {name: a, url: "http://x.example/"}
                """)
            #expect(rest.http.listen == nil)
            #expect(rest.brokerURLs == ["mqtt://a.example:1883", "mqtt://b.example:1883"])
            #expect(rest.webhooks.map(\.name) == ["a"])
            // A file of webhooks alone.
            #expect(try await load("webhooks:\n  - name: b\n    url: http://y.example/\n").webhooks.map(\.url) == ["http://y.example/"])
            #expect(try await load("webhooks: []\n").webhooks.isEmpty)

            let missingSecret = await refusal("""
                webhooks:
                  - name: ops
                    url: http://127.0.0.1:9/hook
                    secret_file: \(directory)/no-such-secret
                """)
            #expect(missingSecret?.contains("secret_file") == true && missingSecret?.contains("no-such-secret") == true)
            let badURL = await refusal("""
                webhooks:
                  - name: ops
                    url: ftp://example.com/x
                """)
            #expect(badURL?.contains("url") == true && badURL?.contains("ftp://example.com/x") == true)
            // A port past 65535 parses, and crashed the HTTP client at the first delivery; one past
            // an Int parses as none.
            for url in ["http://127.0.0.1:65536/x", "http://127.0.0.1:0/x", "http://h.example:18446744073709551617/x", "http://[::1]:70000/x"] {
                let refused = await refusal("webhooks:\n  - {name: ops, url: \"\(url)\"}\n")
                #expect(refused?.contains("port") == true && refused?.contains(url) == true, "\(url): \(refused ?? "accepted")")
            }
            #expect(await refusal("webhooks:\n  - {name: ops, url: \"http://h.example:8o/x\"}\n")?.contains("8o") == true)
            for url in ["http://user:pa:ss@h.example:8080/x", "https://[::1]:65535/x?a=1:2", "http://h.example:/x", "http://h.example/x:1"] {
                #expect(try await load("webhooks:\n  - {name: ops, url: \"\(url)\"}\n").webhooks.first?.url == url)
            }
            let twice = await refusal("""
                webhooks:
                  - name: ops
                    url: http://a.example/x
                  - name: ops
                    url: http://b.example/x
                """)
            #expect(twice?.contains("two webhooks are named ops") == true)
            let badEvent = await refusal("""
                webhooks:
                  - name: ops
                    url: http://a.example/x
                    events: [entered]
                """)
            #expect(badEvent?.contains("unknown event entered") == true)
            // Lists that would match nothing.
            let emptyDevices = await refusal("webhooks:\n  - {name: ops, url: \"http://a.example/x\", devices: []}\n")
            #expect(emptyDevices?.contains("devices") == true && emptyDevices?.contains("matches nothing") == true, "\(emptyDevices ?? "")")
            let commaText = await refusal("webhooks:\n  - {name: ops, url: \"http://a.example/x\", fences: \"depot-*,yard-*\"}\n")
            #expect(commaText?.contains("[depot-*, yard-*]") == true, "\(commaText ?? "")")
            let emptyEvents = await refusal("webhooks:\n  - {name: ops, url: \"http://a.example/x\", events: []}\n")
            #expect(emptyEvents?.contains("events") == true && emptyEvents?.contains("matches nothing") == true, "\(emptyEvents ?? "")")
            // One glob as text is a list of one.
            #expect(try await load("webhooks:\n  - {name: ops, url: \"http://a.example/x\", devices: \"truck-*\"}\n").webhooks.first?.devices == ["truck-*"])
            // An empty value, ~ or null is none, as for every optional key (docs/configuration.md).
            let nones = try await load("""
                webhooks:
                  - name: ops
                    url: http://a.example/x
                    events: ~
                    devices:
                    fences: null
                    secret_file: ~
                    timeout_s:
                    max_age_s: ~
                """).webhooks
            #expect(nones == [WebhookSettings(name: "ops", url: "http://a.example/x")])
            // Quoted, it is the text.
            #expect(await refusal("webhooks:\n  - {name: ops, url: \"http://a.example/x\", events: \"~\"}\n")?.contains("unknown event ~") == true)
        }
    }

    @Test func aBadListOnReloadIsRefusedAndTheWebhooksInForceStay() async throws {
        let receiver = try await WebhookReceiver.start()
        let added = try await WebhookReceiver.start()
        defer { Task { await receiver.stop(); await added.stop() } }
        try await withService(Self.options([Self.webhook("ops", receiver)])) { h in
            let configFile = h.configFile
            try "webhooks:\n  - name: ops\n    url: not a url\n".write(toFile: configFile, atomically: true, encoding: .utf8)
            h.service?.hangup()
            #expect(await h.waitForLog("webhooks not reloaded"))
            try await Self.enter(h, "truck-1")
            #expect(await receiver.waitForRequests(1).count == 1)

            try """
                webhooks:
                  - name: ops
                    url: \(receiver.url)
                  - name: added
                    url: \(added.url)
                """.write(toFile: configFile, atomically: true, encoding: .utf8)
            h.service?.hangup()
            #expect(await h.waitForLog("webhooks reloaded"))
            try await Self.exit(h, "truck-1")
            #expect(await added.waitForRequests(1).map { $0.headers["fleetfence-event"] ?? "" } == ["exit"])
            #expect(await receiver.waitForRequests(2).count == 2)
        }
    }

    @Test func aKill9MidDeliveryDeliversAgainWithTheSameDeliveryIDAndLosesNothing() async throws {
        // The first request is held (the receiver answers late): the service dies with it in flight.
        let receiver = try await WebhookReceiver.start { _, count in
            WebhookReceiver.Answer(status: 204, delay: count == 0 ? .seconds(15) : .zero)
        }
        defer { Task { await receiver.stop() } }
        var options = HarnessOptions.asProcess
        options.configText = "webhooks:\n  - name: ops\n    url: \(receiver.url)\n"
        try await withService(options) { h in
            try await Self.enter(h, "truck-1")
            let alert = try #require(await h.waitForAlerts("truck-1", count: 1).first)
            #expect(await receiver.waitForRequests(1).count == 1)
            #expect(await h.service?.process?.kill() == 128 + SIGKILL)
            // An exit while it is down: the broker keeps the positions for the restart.
            try await Self.exit(h, "truck-1")
            try await h.startService()
            let requests = await receiver.waitForRequests(3, timeout: .seconds(30))
            let deliveries = requests.map { $0.headers["fleetfence-delivery"] ?? "" }
            #expect(requests.count == 3, "\(deliveries)")
            // The interrupted one twice, with the same id; then the exit, once.
            #expect(deliveries.first == "truck-1/\(alert.seq ?? -1)" && deliveries.dropFirst().first == deliveries.first)
            #expect(requests.map { $0.headers["fleetfence-event"] ?? "" } == ["enter", "enter", "exit"])
            try await Task.sleep(for: .milliseconds(500))
            #expect(receiver.requests.count == 3)
        }
    }

    @Test func aCleanStopLetsADeliveryInFlightFinishSoItComesOnce() async throws {
        // The receiver answers after a second: the stop comes while it is in flight.
        let receiver = try await WebhookReceiver.start { _, _ in WebhookReceiver.Answer(status: 204, delay: .seconds(1)) }
        defer { Task { await receiver.stop() } }
        var options = HarnessOptions.asProcess
        options.configText = "webhooks:\n  - name: ops\n    url: \(receiver.url)\n"
        try await withService(options) { h in
            try await Self.enter(h, "truck-1")
            _ = await h.waitForAlerts("truck-1", count: 1)
            #expect(await receiver.waitForRequests(1).count == 1)
            #expect(await h.service?.terminate() == 0)
            try await h.startService()
            // Cancelled at the stop, it was sent again after the start: twice.
            try await Task.sleep(for: .seconds(2))
            #expect(receiver.requests.count == 1, "\(receiver.requests.map { $0.headers["fleetfence-delivery"] ?? "" })")
        }
    }

    @Test func aTimeoutIsRetriedAndA429WaitsForItsRetryAfter() async throws {
        // First too slow for timeout_s, then 429 asking for a second, then accepted.
        let receiver = try await WebhookReceiver.start { _, count in
            switch count {
            case 0: WebhookReceiver.Answer(status: 204, delay: .seconds(3))
            case 1: WebhookReceiver.Answer(status: 429, headers: ["Retry-After": "1"])
            default: WebhookReceiver.Answer(status: 204)
            }
        }
        defer { Task { await receiver.stop() } }
        var webhook = Self.webhook("ops", receiver)
        // Short of the first answer's 3 s, and long enough that a loaded machine hears the 429
        // within it (at 0.3 s the 429 itself was seen to time out, under a load of 10; at 1 s a
        // dripping answer's head was, in a full run of the suite).
        webhook.timeoutSeconds = 2
        try await withRoutedHTTP(Self.options([webhook])) { h, http in
            try await Self.enter(h, "truck-1")
            #expect(await receiver.waitForRequests(2).count == 2)
            #expect(await eventuallyAsync { (try? await Self.status(http, "ops"))?["last_error"] as? String == "HTTP 429, Retry-After 1 s" })
            let requests = await receiver.waitForRequests(3)
            #expect(requests.count == 3)
            // The back-off alone is 0.1-0.4 s here: the second it waited is the receiver's.
            if requests.count == 3 { #expect(requests[2].at - requests[1].at > .milliseconds(950)) }
            #expect(await eventuallyAsync { (try? await Self.status(http, "ops"))?["delivered"] as? Int == 1 })
            #expect(Set(receiver.requests.map { $0.headers["fleetfence-delivery"] ?? "" }).count == 1)
        }
    }

    /// A receiver that answers 200 and then drips its body: the status delivers, and the body is
    /// given up at `timeout_s`, so the device's next event does not wait for the drip's 60 s.
    /// `timeout_s` is 5: at 1, a full run of the suite on a fresh clone once sent the enter twice,
    /// its first attempt failed as one whose head comes after the deadline does (this receiver
    /// answers from the tests' own pool, which a loaded run can hold for seconds).
    @Test func aBodyDrippedPastTheTimeoutHoldsNothingUp() async throws {
        let receiver = try await WebhookReceiver.start { _, count in
            count == 0 ? WebhookReceiver.Answer(status: 200, drip: (bytes: 60, apart: .seconds(1))) : WebhookReceiver.Answer(status: 204)
        }
        defer { Task { await receiver.stop() } }
        var webhook = Self.webhook("ops", receiver)
        webhook.timeoutSeconds = 5
        try await withRoutedHTTP(Self.options([webhook])) { h, http in
            try await Self.enter(h, "truck-1")
            try await Self.exit(h, "truck-1")
            let requests = await receiver.waitForRequests(2, timeout: .seconds(20))
            #expect(requests.count == 2)
            #expect(requests.map { $0.headers["fleetfence-event"] ?? "" } == ["enter", "exit"])
            if requests.count == 2 { #expect(requests[1].at - requests[0].at < .seconds(30)) }
            #expect(await eventuallyAsync { (try? await Self.status(http, "ops"))?["delivered"] as? Int == 2 })
        }
    }

    @Test func anEventUndeliveredAfterMaxAgeIsDeadLetteredWithItsLastError() async throws {
        let refusing = try RefusingPort()
        var webhook = WebhookSettings(name: "ops", url: refusing.url)
        // Long enough that a loaded machine still makes its first attempt within it: at 3 s a
        // full run of the suite once dead-lettered the event before any attempt.
        webhook.maxAgeSeconds = 6
        try await withRoutedHTTP(Self.options([webhook])) { h, http in
            // Before the positions, so before the event is queued: taken once its alert was seen,
            // a loaded suite saw it 0.8 s after the queueing that max_age_s counts from.
            let published = ContinuousClock.now
            try await Self.enter(h, "truck-1")
            _ = await h.waitForAlerts("truck-1", count: 1)
            #expect(await eventuallyAsync(timeout: .seconds(20)) { (try? await Self.status(http, "ops"))?["dead"] as? Int == 1 })
            // A refused connection is retried, not given up on: dead only once max_age_s passed
            // (how many attempts fit in it depends on the machine's load).
            #expect(ContinuousClock.now - published > .milliseconds(5_500))
            let dead = try #require(try await http.get("/api/webhooks/ops/dead").json?.object["dead"] as? [[String: Any]])
            #expect(dead.count == 1)
            #expect((dead.first?["attempts"] as? Int ?? 0) >= 1, "\(dead)")
            // The connection's error, not a status.
            let error = try #require(dead.first?["error"] as? String)
            #expect(!error.hasPrefix("HTTP ") && !error.isEmpty)
            #expect(try await Self.status(http, "ops")?["queued"] as? Int == 0)
        }
        // Refusing until here, not only until its last use.
        refusing.release()
    }

    @Test func redeliveryIsAWriteThatNeedsTheToken() async throws {
        let receiver = try await WebhookReceiver.start()
        defer { Task { await receiver.stop() } }
        try await withTemporaryDirectory { directory in
            let tokenFile = directory + "/token"
            try "t0ken\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
            var options = Self.options([Self.webhook("ops", receiver)])
            options[.httpTokenFile] = tokenFile
            try await withRoutedHTTP(options) { h, http in
                #expect(try await http.request("POST", "/api/webhooks/ops/redeliver").status == 401)
                let authorized = try await http.request("POST", "/api/webhooks/ops/redeliver", headers: ["Authorization": "Bearer t0ken"])
                #expect(authorized.status == 202 && authorized.json?.int("requeued") == 0, "\(authorized)")
                // Reads need none.
                #expect(try await http.get("/api/webhooks").status == 200)
            }
        }
    }

    @Test func fleetfenceServeRefusesABadListWithAMessageAndANonZeroExit() async throws {
        try await withService(.asProcess) { h in
            await h.service?.terminate()
            var options = h.serviceOptions
            options.configText = """
                webhooks:
                  - name: ops
                    url: http://127.0.0.1:9/a
                  - name: ops
                    url: http://127.0.0.1:9/b
                """
            do {
                let started = try await ServiceProcess.start(options, workingDirectory: h.directory, readyTimeout: .seconds(10))
                _ = await started.kill()
                Issue.record("fleetfence serve started with two webhooks named ops")
            } catch {
                let report = "\(error)"
                #expect(report.contains("exited during start-up") && !report.contains("with status 0"), "\(report)")
                #expect(report.contains("two webhooks are named ops"), "\(report)")
            }
        }
    }
}
