import FleetFenceService
import FleetFenceTesting
import Foundation
import Synchronization
import Testing

/// The in-memory broker stands in for mosquitto in the service's rules tests, so it must behave as
/// mosquitto does wherever the service could tell. Every test here runs the same steps through
/// `MessageBus` on both: a real mosquitto through `MQTTClient`, and `InMemoryBroker`. Mosquitto is
/// the reference; where the two differed, the in-memory broker was changed.
@Suite(.timeLimit(.minutes(1)))
struct MessageBusConformanceTests {
    // MARK: Topic filters

    @Test(arguments: [BusKind.mosquitto, .inMemory])
    func wildcardsMatchAsMosquittoMatchesThem(_ kind: BusKind) async throws {
        let probes = [
            "fleet", "fleet/", "fleet/t1/position", "fleet//position", "fleet/t1/x/position", "fleetx/t1", "/t1",
            "$fleet/t1", "$fleet/t1/position",
        ]
        // What each filter receives of the probes, in publish order. Topics starting with `$` are
        // the broker's: a wildcard in the first level does not match them.
        let expected: KeyValuePairs<String, [String]> = [
            "fleet/+/position": ["fleet/t1/position", "fleet//position"],
            "fleet/#": ["fleet", "fleet/", "fleet/t1/position", "fleet//position", "fleet/t1/x/position"],
            "+": ["fleet"],
            "+/t1": ["fleetx/t1", "/t1"],
            "#": ["fleet", "fleet/", "fleet/t1/position", "fleet//position", "fleet/t1/x/position", "fleetx/t1", "/t1"],
            "$fleet/#": ["$fleet/t1", "$fleet/t1/position"],
            "$fleet/+": ["$fleet/t1"],
            "fleet/t1/position": ["fleet/t1/position"],
        ]
        try await withBuses(kind) { buses in
            var collectors: [(filter: String, collector: MessageCollector)] = []
            for (filter, _) in expected {
                collectors.append((filter, try await buses.collector([filter, "done"])))
            }
            let publisher = try await buses.connectedBus()
            for topic in probes + ["done"] { publisher.send(topic, "probe") }
            for ((filter, collector), (_, topics)) in zip(collectors, expected) {
                // `done` came last from the same publisher: every probe a filter matches is in.
                _ = await collector.messages(matching: "done", count: 1)
                #expect(collector.collected.map(\.topic).filter { $0 != "done" } == topics, "\(filter)")
            }
        }
    }

    @Test(arguments: [BusKind.mosquitto, .inMemory])
    func topicsDifferingOnlyInUnicodeNormalizationAreTwoTopics(_ kind: BusKind) async throws {
        let composed = "caf\u{E9}/t1"
        let decomposed = "cafe\u{301}/t1"
        // Swift's String equality takes them for one; MQTT compares bytes.
        #expect(composed == decomposed && utf8(composed) != utf8(decomposed))
        try await withBuses(kind) { buses in
            let exact = try await buses.collector(["caf\u{E9}/+", "done"])
            let everything = try await buses.collector(["#"])
            let publisher = try await buses.connectedBus()
            publisher.send(decomposed, "decomposed", retain: true)
            publisher.send(composed, "composed", retain: true)
            publisher.send("done", "")

            _ = await exact.messages(matching: "done", count: 1)
            #expect(exact.collected.map { utf8($0.topic) } == [composed, "done"].map(utf8))
            let both = await everything.messages(count: 3)
            #expect(both.map { utf8($0.topic) } == [decomposed, composed, "done"].map(utf8))

            // Each is retained on its own: neither replaced the other.
            let late = try await buses.collector(["#"])
            let retained = await late.messages(count: 2)
            #expect(Set(retained.map { [utf8($0.topic), $0.payload] })
                == [[utf8(composed), utf8("composed")], [utf8(decomposed), utf8("decomposed")]])
        }
    }

    // MARK: Delivery

    @Test(arguments: [BusKind.mosquitto, .inMemory])
    func overlappingSubscriptionsDeliverOneCopyPerClient(_ kind: BusKind) async throws {
        // mosquitto sends one copy at the QoS of the matching subscription its topic tree reaches
        // first (a literal level before `+` before `#`), not the highest of them as MQTT 3.1.1
        // (3.3.5) asks. The service subscribes at one QoS, so only the single copy matters to it;
        // the in-memory broker follows mosquitto all the same.
        let cases: [(subscriptions: [(filter: String, qos: Int32)], qos: Int32)] = [
            ([("fleet/+/position", 1), ("fleet/#", 1), ("fleet/t1/position", 1), ("+/t1/#", 1)], 1),
            ([("fleet/#", 1), ("fleet/+/position", 0)], 0),
            ([("fleet/+/position", 1), ("fleet/#", 0)], 1),
            ([("fleet/t1/position", 0), ("fleet/+/position", 1)], 0),
            ([("#", 0), ("fleet/t1/position/#", 1)], 1),
        ]
        try await withBuses(kind) { buses in
            var collectors: [MessageCollector] = []
            for (subscriptions, _) in cases {
                let collector = try await buses.collector([subscriptions[0].filter], qos: subscriptions[0].qos)
                for (filter, qos) in subscriptions.dropFirst() { collector.bus.subscribe([filter], qos: qos) }
                #expect(await buses.subscribed(collector.bus))
                collectors.append(collector)
            }
            let publisher = try await buses.connectedBus()
            publisher.send("fleet/t1/position", "once", qos: 1)
            publisher.send("fleet/t1/position", "done", qos: 1)
            for (collector, (subscriptions, qos)) in zip(collectors, cases) {
                let received = await collector.messages(count: 2)
                #expect(received.map(\.text) == ["once", "done"], "\(subscriptions)")
                #expect(received.map(\.qos) == [qos, qos], "\(subscriptions)")
            }
        }
    }

    @Test(arguments: [BusKind.mosquitto, .inMemory])
    func qosIsTheLowerOfPublishAndSubscription(_ kind: BusKind) async throws {
        try await withBuses(kind) { buses in
            let atQoS0 = try await buses.collector(["q/#"], qos: 0)
            let atQoS1 = try await buses.collector(["q/#"], qos: 1)
            let publisher = try await buses.connectedBus()
            publisher.send("q/0", "", qos: 0)
            publisher.send("q/1", "", qos: 1)
            #expect(await atQoS0.messages(count: 2).map(\.qos) == [0, 0])
            #expect(await atQoS1.messages(count: 2).map(\.qos) == [0, 1])
        }
    }

    @Test(arguments: [BusKind.mosquitto, .inMemory])
    func retainedMessagesAreKeptLatestFirstAndDeletedByAnEmptyOne(_ kind: BusKind) async throws {
        try await withBuses(kind) { buses in
            let live = try await buses.collector(["r/#"])
            let publisher = try await buses.connectedBus()
            publisher.send("r/1", "first", retain: true)
            publisher.send("r/1", "latest", retain: true)
            publisher.send("r/2", "gone", retain: true)
            publisher.send("r/2", "", retain: true)
            // Live deliveries are not marked retained, the deleting empty one included.
            let delivered = await live.messages(count: 4)
            #expect(delivered.map(\.text) == ["first", "latest", "gone", ""])
            #expect(delivered.allSatisfy { !$0.retain })

            // A new subscription gets what is retained now, marked retained, before anything later.
            let late = try await buses.collector(["r/#"])
            publisher.send("r/done", "")
            _ = await late.messages(matching: "r/done", count: 1)
            #expect(late.collected.map(\.description) == ["r/1 (retained) latest", "r/done "])
        }
    }

    // MARK: Order and handlers

    @Test(arguments: [BusKind.mosquitto, .inMemory])
    func onePublishersMessagesArriveInPublishOrder(_ kind: BusKind) async throws {
        try await withBuses(kind) { buses in
            let collector = try await buses.collector(["o/#"])
            let publisher = try await buses.connectedBus()
            // One QoS at a time: libmosquitto holds QoS 1 publishes beyond its in-flight window
            // while QoS 0 ones go at once, so the two may overtake each other.
            for qos: Int32 in [1, 0] {
                collector.clear()
                for index in 0..<300 { publisher.send("o/\(qos)", "\(index)", qos: qos) }
                let received = await collector.messages(count: 300)
                #expect(received.map(\.text) == (0..<300).map(String.init), "QoS \(qos)")
            }
        }
    }

    @Test(arguments: [BusKind.mosquitto, .inMemory])
    func handlersAreCalledOneAtATime(_ kind: BusKind) async throws {
        try await withBuses(kind) { buses in
            let subscriber = try buses.bus()
            let log = HandlerLog(subscriber)
            subscriber.subscribe(["h/#"], qos: 1)
            try await subscriber.connect(timeout: .seconds(5))
            #expect(await buses.subscribed(subscriber))
            let first = try await buses.connectedBus(), second = try await buses.connectedBus()
            await withTaskGroup(of: Void.self) { group in
                for publisher in [first, second] {
                    group.addTask { for index in 0..<100 { publisher.send("h/x", "\(index)") } }
                }
            }
            #expect(await log.wait { events in events.count(where: \.isMessage) == 200 })
            #expect(log.overlaps == 0)
        }
    }

    @Test(arguments: [BusKind.mosquitto, .inMemory])
    func connectionChangeComesBeforeAnyMessageAndAfterTheLast(_ kind: BusKind) async throws {
        try await withBuses(kind) { buses in
            let publisher = try await buses.connectedBus()
            publisher.send("c/1", "kept", retain: true)
            publisher.send("c/2", "kept", retain: true)
            #expect(await publisher.waitForPublishes(timeout: .seconds(5)))

            // Retained messages are sent as soon as the subscription is: right after the connection.
            let subscriber = try buses.bus()
            let log = HandlerLog(subscriber)
            subscriber.subscribe(["c/#"], qos: 1)
            try await subscriber.connect(timeout: .seconds(5))
            #expect(await log.wait { events in events.count(where: \.isMessage) == 2 })
            await subscriber.disconnect()
            // Told while connected: a publish from the handler goes out at once.
            #expect(log.events == [.connected(isConnected: true), .message("c/1"), .message("c/2"), .disconnected])
        }
    }

    // MARK: Sessions

    @Test(arguments: [BusKind.mosquitto, .inMemory])
    func persistentSessionReceivesWhatWasPublishedWhileAway(_ kind: BusKind) async throws {
        try await withBuses(kind) { buses in
            let publisher = try await buses.connectedBus()
            let away = try await buses.collector(["s/#"], id: "away", cleanSession: false)
            await away.stop()
            publisher.send("s/1", "while away")
            publisher.send("s/2", "while away")
            #expect(await publisher.waitForPublishes(timeout: .seconds(5)))

            let back = try await buses.collector(["s/#"], id: "away", cleanSession: false)
            let missed = await back.messages(count: 2)
            #expect(missed.map(\.description) == ["s/1 while away", "s/2 while away"])
            #expect(missed.allSatisfy { $0.qos == 1 })
            await back.stop()

            // A clean session ends the persistent one: nothing is kept for the id any more.
            let clean = try await buses.collector(["s/#"], id: "away", cleanSession: true)
            await clean.stop()
            publisher.send("s/3", "no session")
            #expect(await publisher.waitForPublishes(timeout: .seconds(5)))
            let again = try await buses.collector(["s/#"], id: "away", cleanSession: false)
            publisher.send("s/done", "")
            // Anything kept would have been delivered at the connection, before `s/done`.
            _ = await again.messages(matching: "s/done", count: 1)
            #expect(again.collected.map(\.topic) == ["s/done"])
        }
    }

    /// mosquitto keeps QoS 0 messages for an absent session only with `queue_qos0_messages true`:
    /// off by default, on in the shipped Config/mosquitto.conf (and `LocalMosquitto`'s broker).
    @Test(arguments: [BusKind.mosquitto, .inMemory], [false, true])
    func qos0WhileAwayIsKeptOnlyWhenTheBrokerQueuesIt(_ kind: BusKind, queuesQoS0Messages: Bool) async throws {
        try await withBuses(kind, queuesQoS0Messages: queuesQoS0Messages) { buses in
            let publisher = try await buses.connectedBus()
            let away = try await buses.collector(["s/#"], qos: 1, id: "away", cleanSession: false)
            away.bus.subscribe(["d/#"], qos: 0)
            #expect(await buses.subscribed(away.bus))
            await away.stop()
            publisher.send("s/0", "published at QoS 0", qos: 0)
            publisher.send("d/1", "subscribed at QoS 0", qos: 1)
            publisher.send("s/1", "published at QoS 1", qos: 1)
            #expect(await publisher.waitForPublishes(timeout: .seconds(5)))

            let back = try await buses.collector(["s/#"], id: "away", cleanSession: false)
            // Kept messages arrive in publish order: once `s/1` is in, the QoS 0 ones would be too.
            _ = await back.messages(matching: "s/1", count: 1)
            let kept = back.collected.map { "\($0.topic) \($0.qos)" }
            #expect(kept == (queuesQoS0Messages ? ["s/0 0", "d/1 0", "s/1 1"] : ["s/1 1"]))
        }
    }

    // MARK: Last will

    @Test(arguments: [BusKind.mosquitto, .inMemory])
    func willIsPublishedWhenAClientEndsWithoutDisconnect(_ kind: BusKind) async throws {
        try await withBuses(kind) { buses in
            let watcher = try await buses.collector(["will/#"])
            var vanishing: (any MessageBus)? = try await buses.connectedBus(
                will: MQTTWill(topic: "will/vanishing", payload: "gone", qos: 1, retain: true))
            #expect(vanishing?.isConnected == true)
            // The last reference dropped without `disconnect`, as a crash would.
            vanishing = nil

            let will = await watcher.messages(count: 1)
            #expect(will.map(\.description) == ["will/vanishing gone"])
            // Retained as the will asked: a later subscriber is told too.
            let late = try await buses.collector(["will/#"])
            #expect(await late.messages(count: 1).map(\.description) == ["will/vanishing (retained) gone"])
        }
    }

    @Test(arguments: [BusKind.mosquitto, .inMemory])
    func willIsNotPublishedAfterDisconnect(_ kind: BusKind) async throws {
        try await withBuses(kind) { buses in
            let watcher = try await buses.collector(["will/#"])
            let polite = try await buses.connectedBus(will: MQTTWill(topic: "will/polite", payload: "gone", qos: 1, retain: false))
            await polite.disconnect()
            // `disconnect` returned after sending DISCONNECT, so the broker reads it before this
            // later publish: a will would have arrived before `will/done`.
            try await buses.connectedBus().send("will/done", "")
            _ = await watcher.messages(matching: "will/done", count: 1)
            #expect(watcher.collected.map(\.topic) == ["will/done"])
        }
    }

    // MARK: Publish results and refused subscriptions

    @Test(arguments: [BusKind.mosquitto, .inMemory])
    func publishIsDroppedOutsideAConnection(_ kind: BusKind) async throws {
        try await withBuses(kind) { buses in
            let bus = try buses.bus()
            #expect(bus.send("p", "", qos: 0) == .dropped(.notStarted))
            #expect(bus.send("p", "", qos: 1) == .dropped(.notStarted))
            try await bus.connect(timeout: .seconds(5))
            #expect(bus.send("p", "", qos: 0) == .sent)
            #expect(bus.send("p", "", qos: 1) == .sent)
            #expect(await bus.waitForPublishes(timeout: .seconds(5)))
            await bus.disconnect()
            #expect(bus.send("p", "", qos: 0) == .dropped(.notStarted))
            #expect(bus.send("p", "", qos: 1) == .dropped(.notStarted))
        }
    }

    @Test(arguments: [BusKind.mosquitto, .inMemory])
    func refusedSubscriptionIsListedUntilGrantedAndRetried(_ kind: BusKind) async throws {
        try await withBuses(kind, allowing: "open/#", refusing: "closed/#") { buses in
            let subscriber = try await buses.collector(["open/#", "closed/#"])
            #expect(subscriber.bus.refusedSubscriptions == ["closed/#"])
            let publisher = try await buses.connectedBus()
            publisher.send("closed/1", "refused")
            publisher.send("open/1", "")
            _ = await subscriber.messages(matching: "open/1", count: 1)
            #expect(subscriber.collected.map(\.topic) == ["open/1"])

            // Still refused: the retry keeps it listed.
            subscriber.bus.retryRefusedSubscriptions()
            #expect(await buses.subscribed(subscriber.bus))
            #expect(subscriber.bus.refusedSubscriptions == ["closed/#"])

            // mosquitto's dynamic security applies the grant when it reads the command, and
            // disconnects the clients it concerns (they reconnect by themselves): retry until granted.
            try await buses.grant("closed/#")
            #expect(await buses.eventually {
                subscriber.bus.retryRefusedSubscriptions()
                return await buses.subscribed(subscriber.bus) && subscriber.bus.refusedSubscriptions.isEmpty
            })
            publisher.send("closed/2", "granted")
            #expect(await subscriber.messages(matching: "closed/#", count: 1).map(\.text) == ["granted"])
        }
    }
}

// MARK: - Either broker

enum BusKind: Sendable, CustomTestStringConvertible {
    case mosquitto, inMemory
    var testDescription: String { self == .mosquitto ? "mosquitto" : "in memory" }
}

/// Runs `body` with a fresh broker of `kind`; every client made through it is disconnected after.
/// `allowing` and `refusing` make a broker that refuses subscriptions: mosquitto's dynamic
/// security grants anonymous clients `allowing` alone, the in-memory broker refuses `refusing`.
func withBuses(
    _ kind: BusKind, queuesQoS0Messages: Bool = true, allowing: String? = nil, refusing: String? = nil,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (Buses) async throws -> Void
) async throws {
    switch kind {
    case .inMemory:
        let broker = InMemoryBroker(queuesQoS0Messages: queuesQoS0Messages)
        if let refusing { broker.refuse(refusing) }
        try await Buses(memory: broker).run(body)
    case .mosquitto:
        try await withTemporaryDirectory { directory in
            var config = "queue_qos0_messages \(queuesQoS0Messages)"
            if let allowing {
                config += "\n" + (try DynamicSecurity.brokerConfig(allowingSubscriptionsTo: [allowing], directory: directory))
            }
            try await withLocalBroker(extraConfig: config) { broker in
                try await Buses(mosquitto: broker).run(body)
            }
        }
    }
}

/// Clients of one broker of either kind, and the waits a test needs that differ between them.
final class Buses: Sendable {
    private let mosquitto: LocalMosquitto?
    private let memory: InMemoryBroker?
    /// Every bus made, to disconnect at the end; weakly, so that a test can drop one.
    private let made = Mutex<[WeakBus]>([])

    private struct WeakBus {
        weak var bus: (any MessageBus)?
    }

    init(mosquitto: LocalMosquitto) {
        self.mosquitto = mosquitto
        memory = nil
    }

    init(memory: InMemoryBroker) {
        mosquitto = nil
        self.memory = memory
    }

    fileprivate func run(isolation: isolated (any Actor)? = #isolation, _ body: (Buses) async throws -> Void) async throws {
        do {
            try await body(self)
        } catch {
            await disconnectAll()
            throw error
        }
        await disconnectAll()
    }

    private func disconnectAll() async {
        for bus in made.withLock({ $0.compactMap(\.bus) }) { await bus.disconnect() }
    }

    /// A client, not connected yet.
    func bus(id: String? = nil, cleanSession: Bool = true, will: MQTTWill? = nil) throws -> any MessageBus {
        let bus: any MessageBus
        if let mosquitto {
            var options = mosquitto.clientOptions(clientID: id, cleanSession: cleanSession)
            options.will = will
            bus = try MQTTClient(options: options, logger: testLogger("mqtt"))
        } else {
            bus = memory!.client(id: id, cleanSession: cleanSession, will: will)
        }
        made.withLock { $0.append(WeakBus(bus: bus)) }
        return bus
    }

    func connectedBus(will: MQTTWill? = nil) async throws -> any MessageBus {
        let bus = try bus(will: will)
        try await bus.connect(timeout: .seconds(5))
        return bus
    }

    /// A collector subscribed to `filters`: whatever is published after it returns is collected.
    func collector(_ filters: [String], qos: Int32 = 1, id: String? = nil, cleanSession: Bool = true) async throws -> MessageCollector {
        let collector = if let mosquitto {
            try await MessageCollector.start(url: mosquitto.url, filters: filters, qos: qos, clientID: id, cleanSession: cleanSession)
        } else {
            try await MessageCollector.start(broker: memory!, filters: filters, qos: qos, clientID: id, cleanSession: cleanSession)
        }
        made.withLock { $0.append(WeakBus(bus: collector.bus)) }
        return collector
    }

    /// Whether the broker has answered `bus`'s subscriptions (the in-memory one answers at once).
    func subscribed(_ bus: any MessageBus) async -> Bool {
        guard let client = bus as? MQTTClient else { return true }
        return await client.waitForSubscriptions(timeout: .seconds(5))
    }

    /// Grants the filter refused, as an operator changing the broker's ACL would.
    func grant(_ filter: String) async throws {
        guard mosquitto != nil else { return memory!.grant(filter) }
        guard let admin = try await connectedBus() as? MQTTClient else { return }
        DynamicSecurity.allowSubscriptions(to: filter, using: admin)
    }

    /// Tries `condition` until it holds, for up to 10 s; for what a broker does in its own time.
    func eventually(_ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while await !condition() {
            guard ContinuousClock.now < deadline else { return false }
        }
        return true
    }
}

/// What a bus's handlers were told, in order, and whether two calls ever ran at once.
final class HandlerLog: Sendable {
    enum Event: Equatable, Sendable {
        /// Told `true`, and whether the bus said it was connected then.
        case connected(isConnected: Bool)
        case disconnected
        case message(String)

        var isMessage: Bool { if case .message = self { true } else { false } }
    }

    private struct State {
        var events: [Event] = []
        var running = 0
        var overlaps = 0
        var waiters: [Int: (condition: @Sendable ([Event]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    init(_ bus: any MessageBus) {
        bus.onConnectionChange { [self, weak bus] up in
            record(up ? .connected(isConnected: bus?.isConnected == true) : .disconnected)
        }
        bus.onMessage { [self] message in record(.message(message.topic)) }
    }

    var events: [Event] { state.withLock { $0.events } }
    var overlaps: Int { state.withLock { $0.overlaps } }

    private func record(_ event: Event) {
        state.withLock { state in
            state.running += 1
            if state.running > 1 { state.overlaps += 1 }
        }
        // A handler that takes a moment, so that a call made meanwhile would overlap it.
        usleep(200)
        let ready = state.withLock { state in
            state.running -= 1
            state.events.append(event)
            let ready = state.waiters.filter { $0.value.condition(state.events) }
            for id in ready.keys { state.waiters[id] = nil }
            return ready.values.map(\.continuation)
        }
        for waiter in ready { waiter.resume() }
    }

    /// Whether `condition` came to hold for the events within 5 s.
    func wait(until condition: @escaping @Sendable ([Event]) -> Bool) async -> Bool {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        let timer = Task { [self] in
            try? await Task.sleep(for: .seconds(5))
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if condition(state.events) { return true }
                state.waiters[id] = (condition, continuation)
                return false
            }
            if now { continuation.resume() }
        }
        timer.cancel()
        return condition(events)
    }
}

/// The bytes MQTT compares topics by.
private func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

extension MessageBus {
    @discardableResult
    fileprivate func send(_ topic: String, _ text: String, qos: Int32 = 1, retain: Bool = false) -> MQTTPublishResult {
        publish(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }
}
