import CMosquitto
import Logging
import Synchronization

/// The state behind an `MQTTClient`, shared by callers' threads and the network thread.
/// Every mutable field is an `Atomic` or sits in a `Mutex`; nothing else is mutated.
final class ClientEngine: Sendable {
    let options: MQTTOptions
    let logger: Logger
    let handle: MosquittoHandle

    let connected = Atomic<Bool>(false)
    /// Between `connect()` and `disconnect()`; publishes are refused outside.
    let accepting = Atomic<Bool>(false)
    let ledger: Mutex<PublishLedger>
    let subscriptions = Mutex(SubscriptionBook())
    let handlers = Mutex<Handlers>(Handlers())
    /// The current run of the network thread, if any.
    let run = Mutex<LoopContext?>(nil)
    /// Wakes the network thread to write what other threads queued.
    let wake: LoopWake
    /// Turns the network thread has taken (`turn(timeoutMilliseconds:)`): what a burst costs in
    /// `poll`s and wake-ups, which tests hold down.
    let turns = Atomic(0)
    /// Publishes made while a connect is under way wait here (``PublishGate``).
    let gate = Mutex(PublishGate())
    /// A CONNACK accepted the connection since the gate was shut: the network thread opens the
    /// gate after the read call that handled it. Only that thread touches it; an atomic because
    /// the engine is shared, and so the check after every read takes no lock.
    private let connackPending = Atomic(false)

    struct Handlers {
        var onMessage: (@Sendable (MQTTMessage) -> Void)?
        var onConnectionChange: (@Sendable (Bool) -> Void)?
        var onSubscribed: (@Sendable () -> Void)?
        var onAcknowledged: (@Sendable () -> Void)?
    }

    init(options: MQTTOptions, logger: Logger) throws(MQTTError) {
        try options.validate()
        var logger = logger
        logger[metadataKey: "mqtt.broker"] = "\(options.urls.map(\.description).joined(separator: ","))"
        if let clientID = options.clientID { logger[metadataKey: "mqtt.client"] = "\(clientID)" }
        self.options = options
        self.logger = logger
        self.handle = try MosquittoHandle(options: options)
        self.ledger = Mutex(PublishLedger(limit: options.maxQueuedPublishes))
        self.wake = try LoopWake()
        installCallbacks(on: handle.raw, tracing: logger.logLevel <= .trace)
    }

    // MARK: connect / disconnect

    func connect(timeout: Duration) async throws {
        let context = try run.withLock { run throws(MQTTError) -> LoopContext in
            guard run == nil else { throw .alreadyStarted }
            let context = LoopContext(engine: self, handlers: handlers.withLock { $0 })
            run = context
            return context
        }
        accepting.store(true, ordering: .releasing)
        // libmosquitto hands this pointer back to every callback. It stays valid: the
        // network thread holds `context` strongly and callbacks only run on that thread.
        mosquitto_user_data_set(handle.raw, Unmanaged.passUnretained(context).toOpaque())
        context.startThread()

        let url = options.url
        let timer = Task { [attempt = context.attempt] in
            do { try await Task.sleep(for: timeout) } catch { return }
            attempt.resolve(.failure(.timedOut(host: url.host, port: url.port, after: timeout)))
        }
        defer { timer.cancel() }
        do {
            try await withTaskCancellationHandler {
                try await context.attempt.wait()
            } onCancel: {
                context.attempt.resolve(.failure(.cancelled))
            }
        } catch {
            // A failed first connect leaves nothing running: no retries behind the
            // caller's back; it decides whether to try again.
            accepting.store(false, ordering: .releasing)
            context.requestStop(.abrupt)
            await context.exit.wait()
            if case let .tls(host, port, _)? = error as? MQTTError, !options.skipsHostNameCheck {
                let url = options.urls.first { $0.host == host && $0.port == port } ?? options.url
                throw MQTTError.tls(host: host, port: port, reason: await TLSDiagnosis.explain(options, url: url))
            }
            throw error
        }
    }

    func disconnect() async {
        guard let context = run.withLock({ $0 }) else { return }
        accepting.store(false, ordering: .releasing)
        context.requestStop(.clean)
        // Queues DISCONNECT and wakes the loop, which writes it and closes the socket.
        // MOSQ_ERR_NO_CONN when already down is fine: the loop then just exits.
        _ = mosquitto_disconnect(handle.raw)
        wake.signal()
        await context.exit.wait()
    }

    /// For `MQTTClient.deinit`: stop without DISCONNECT, so the broker publishes the will
    /// as for any client that vanished. Joins the thread unless called on it.
    func stopAbruptly() {
        guard let context = run.withLock({ $0 }) else { return }
        accepting.store(false, ordering: .releasing)
        context.requestStop(.abrupt)
        wake.signal()
        if !context.isCurrentThread {
            context.exit.waitBlocking()
        }
    }

    func runFinished(_ context: LoopContext) {
        run.withLock { run in
            if run === context { run = nil }
        }
    }

    // MARK: publish

    func publish(topic: String, payload: UnsafeRawBufferPointer, qos: Int32, retain: Bool) -> MQTTPublishResult {
        guard accepting.load(ordering: .acquiring) else { return .dropped(.notStarted) }
        // MQTT's limit; also keeps the Int32 conversion below from trapping.
        guard payload.count <= 268_435_455 else {
            let rc = MOSQ_ERR_PAYLOAD_SIZE.rawValue
            return .dropped(.rejected(code: rc, reason: MosquittoLibrary.describe(rc)))
        }
        let acknowledged = qos > 0
        if acknowledged {
            guard ledger.withLock({ $0.reserve() }) else {
                return .dropped(.backlogFull(limit: options.maxQueuedPublishes))
            }
        }
        // Under the gate's lock: the network thread shuts it before a connect, and no publish may
        // reach libmosquitto after that (see `PublishGate`).
        return gate.withLock { gate in
            if gate.open { return send(topic: topic, payload: payload, qos: qos, retain: retain) }
            let live = connected.load(ordering: .acquiring)
            // QoS 0 is not queued while the connection is down, as libmosquitto would not.
            guard acknowledged || live else { return .dropped(.notConnected) }
            // Refused now, as `mosquitto_publish` would refuse it when it is handed over: the caller
            // hears of it, and no ticket stands for a message that never goes.
            let check = Self.publishable(topic)
            guard check == MosquittoCode.success else {
                if acknowledged { ledger.withLock { $0.release() } }
                return .dropped(.rejected(code: check, reason: MosquittoLibrary.describe(check)))
            }
            let ticket = acknowledged ? ledger.withLock { $0.issue() } : nil
            gate.waiting.append(PublishGate.Waiting(topic: topic, payload: Array(payload), qos: qos, retain: retain, ticket: ticket))
            return live ? .sent : .queued
        }
    }

    /// Hands a publish to libmosquitto and records it in the ledger (its slot already reserved
    /// when `qos` > 0).
    private func send(topic: String, payload: UnsafeRawBufferPointer, qos: Int32, retain: Bool, ticket: UInt64? = nil) -> MQTTPublishResult {
        let acknowledged = qos > 0
        var mid: Int32 = 0
        let rc = mosquitto_publish(handle.raw, &mid, topic, Int32(payload.count), payload.baseAddress, qos, retain)
        wakeToWrite()
        switch rc {
        case MosquittoCode.success:
            ledger.withLock { ledger in
                if acknowledged { ledger.recordQoS1(mid: mid, ticket: ticket) } else { ledger.recordQoS0(mid: mid) }
            }
            return .sent
        case MosquittoCode.noConnection where acknowledged:
            // Already in libmosquitto's queue: it goes out after the reconnect.
            ledger.withLock { $0.recordQoS1(mid: mid, ticket: ticket) }
            return .queued
        case MosquittoCode.noConnection:
            return .dropped(.notConnected)
        default:
            if acknowledged { ledger.withLock { ledger in if let ticket { ledger.abandon(ticket: ticket) } else { ledger.release() } } }
            return .dropped(.rejected(code: rc, reason: MosquittoLibrary.describe(rc)))
        }
    }

    /// `mosquitto_publish`'s own checks of a topic (libmosquitto 2.0.11, lib/actions.c): not
    /// empty, UTF-8 it accepts, no wildcard, at most 65,535 bytes.
    private static func publishable(_ topic: String) -> Int32 {
        let length = topic.utf8.count
        guard length > 0 else { return MOSQ_ERR_INVAL.rawValue }
        guard mosquitto_validate_utf8(topic, Int32(clamping: length)) == MosquittoCode.success else {
            return MOSQ_ERR_MALFORMED_UTF8.rawValue
        }
        return mosquitto_pub_topic_check(topic) == MosquittoCode.success ? MosquittoCode.success : MOSQ_ERR_INVAL.rawValue
    }

    /// Before each connect, on the network thread: publishes wait from now on.
    func shutGate() {
        gate.withLock { $0.open = false }
        connackPending.store(false, ordering: .relaxed)
    }

    /// The CONNACK accepted the connection (in libmosquitto's handling of it, before its resends).
    func connackHandled() {
        connackPending.store(true, ordering: .relaxed)
    }

    /// After each read call, on the network thread: once the CONNACK has been handled, and with it
    /// libmosquitto's resends queued, what waited goes to libmosquitto in order and the gate opens.
    /// A connection that ended within the same read keeps them waiting for the next CONNACK. Other
    /// publishers wait meanwhile (a backlog of 100,000 takes a fraction of a second): one sent
    /// beside the flush could overtake what waited.
    func openGateIfConnected() {
        guard connackPending.exchange(false, ordering: .relaxed) else { return }
        let refused: [(topic: String, reason: String)] = gate.withLock { gate in
            guard connected.load(ordering: .acquiring) else { return [] }
            var refused: [(String, String)] = []
            for message in gate.waiting {
                let result = message.payload.withUnsafeBytes { payload in
                    send(topic: message.topic, payload: payload, qos: message.qos, retain: message.retain, ticket: message.ticket)
                }
                if case let .dropped(.rejected(_, reason)) = result { refused.append((message.topic, reason)) }
            }
            gate.waiting = []
            gate.open = true
            return refused
        }
        // Out of the lock: a log handler may publish. Only a failure to allocate gets here (the
        // topic was checked when it was published).
        for (topic, reason) in refused {
            logger.error("MQTT publish refused after the reconnect", metadata: ["topic": "\(topic)", "reason": "\(reason)"])
        }
    }

    /// After queueing from any thread: the network thread writes it (libmosquitto in threaded
    /// mode never writes on the caller's thread). Skipped when the network thread has already
    /// written everything queued. On the network thread itself (a handler's publish) the signal
    /// is not needed, since its turn writes after reading, but it costs at most one pipe write
    /// per turn (`LoopWake` coalesces), so no thread check is made per publish.
    func wakeToWrite() {
        if mosquitto_want_write(handle.raw) { wake.signal() }
    }

    var unacknowledgedPublishes: Int {
        ledger.withLock { $0.unacknowledged }
    }

    var publishTickets: PublishTickets {
        ledger.withLock { $0.tickets }
    }

    // MARK: subscribe

    func subscribe(_ filters: [String], qos: Int32) {
        let valid = filters.filter { filter in
            let rc = mosquitto_sub_topic_check(filter)
            if rc != MosquittoCode.success {
                logger.error("ignoring invalid MQTT topic filter", metadata: ["filter": "\(filter)"])
            }
            return rc == MosquittoCode.success
        }
        // Under the book's lock so a concurrent on_connect cannot send them twice.
        subscriptions.withLock { book in
            let changed = book.add(valid, qos: qos)
            guard !changed.isEmpty, connected.load(ordering: .acquiring) else { return }
            book.sending(handle.subscribe(changed).sent)
            wakeToWrite()
        }
    }

    func unsubscribe(_ filters: [String]) {
        subscriptions.withLock { book in
            let known = book.remove(filters)
            guard !known.isEmpty, connected.load(ordering: .acquiring) else { return }
            if let mid = handle.unsubscribe(known) { book.awaitingAck.insert(mid) }
            wakeToWrite()
        }
    }

    /// The filter of ``confirmSubscriptions()``'s UNSUBSCRIBE. A broker answers an UNSUBSCRIBE that
    /// matches no subscription with an UNSUBACK all the same (MQTT 3.1.1, 3.10.4), and mosquitto
    /// does so for one its ACL denies too.
    static let roundTripFilter = "fleetfence-round-trip"

    func confirmSubscriptions() {
        subscriptions.withLock { book in
            guard connected.load(ordering: .acquiring) else { return }
            // Never one of the client's own filters: an UNSUBSCRIBE names a filter exactly.
            var filter = Self.roundTripFilter
            while book.entries.contains(where: { $0.filter == filter }) { filter += "-" }
            guard let mid = handle.unsubscribe([filter]) else {
                // Not sent: `onSubscribed` waits for the next connection's SUBACKs.
                logger.info("MQTT round trip not sent; subscriptions confirmed at the next connection")
                return
            }
            book.awaitingAck.insert(mid)
            book.roundTrip = mid
            book.toldSettled = false
            wakeToWrite()
        }
    }

    /// Called on the network thread when a CONNACK accepted the connection. Marks the
    /// client connected under the book's lock, so `subscribe` racing with it sends a
    /// filter either here or there, never twice (a repeated SUBSCRIBE would make the
    /// broker deliver retained messages again).
    func markConnectedAndResubscribe() {
        subscriptions.withLock { book in
            connected.store(true, ordering: .releasing)
            book.awaitingAck.removeAll()
            book.sent.removeAll()
            book.roundTrip = nil
            book.toldSettled = false
            guard !book.entries.isEmpty else { return }
            let (sent, failure) = handle.subscribe(book.entries)
            book.sending(sent)
            if let failure {
                logger.error("MQTT subscribe failed", metadata: ["reason": "\(MosquittoLibrary.describe(failure))"])
            }
        }
    }

    /// Filters the broker refused, sorted.
    var refusedSubscriptions: [String] {
        subscriptions.withLock { $0.refused.sorted() }
    }

    /// Asks again for the filters the broker refused (its ACL may have changed, or a cluster node
    /// that could not take the subscription is back).
    func retryRefusedSubscriptions() {
        subscriptions.withLock { book in
            let entries = book.entries.filter { book.refused.contains($0.filter) }
            guard !entries.isEmpty, connected.load(ordering: .acquiring) else { return }
            book.sending(handle.subscribe(entries).sent)
            wakeToWrite()
        }
    }

    var subscriptionsSettled: Bool {
        subscriptions.withLock { book in
            connected.load(ordering: .acquiring) && book.awaitingAck.isEmpty
        }
    }
}
