import CMosquitto
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LoopContext {
    /// How long a clean stop may take to flush DISCONNECT before the thread gives up.
    private static let cleanStopGrace: Duration = .seconds(2)

    private var idleWaitMilliseconds: Int32 {
        let (seconds, attoseconds) = engine.options.idleWait.components
        return Int32(clamping: seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
    }

    /// The network thread: connect, then turn (`turn(timeoutMilliseconds:)`) until stopped, reconnecting
    /// with exponential backoff whenever the connection drops.
    func runNetworkLoop() {
        defer { finish() }
        let mosq = engine.handle.raw
        var brokers = BrokerRotation(urls: engine.options.urls)

        if let error = connectOrNext(&brokers) {
            attempt.resolve(.failure(error))
            return
        }

        let idleWait = idleWaitMilliseconds
        var backoff = Backoff(initial: engine.options.reconnectDelay, maximum: engine.options.reconnectDelayMax)
        var reconnecting = false
        var cleanStopDeadline: ContinuousClock.Instant?
        while true {
            switch stop {
            case .abrupt:
                return
            case .clean:
                let now = ContinuousClock.now
                if let deadline = cleanStopDeadline {
                    if now >= deadline { return }
                } else {
                    cleanStopDeadline = now + Self.cleanStopGrace
                }
            case .none:
                break
            }

            var rc = turn(timeoutMilliseconds: idleWait)
            var savedErrno = errno
            if rc == MosquittoCode.success {
                if engine.connected.load(ordering: .relaxed) {
                    if reconnecting {
                        reconnecting = false
                        backoff.reset()
                    }
                    brokers.succeeded()
                    continue
                }
                // Until the CONNACK: catch a dead socket libmosquitto would spin on.
                guard case let .dead(socketErrno) = SocketHealth.check(mosquitto_socket(mosq)) else { continue }
                rc = socketErrno == 0 ? MosquittoCode.connectionLost : MosquittoCode.errno
                savedErrno = socketErrno
            }

            if stop != .none { return }
            guard attempt.succeeded else {
                // The first connection never came up: the next broker, or report why and end.
                let error = connectError(code: rc, errno: savedErrno, url: brokers.current)
                brokers.advance()
                if !brokers.roundFailed {
                    logger.info("MQTT broker unreachable; trying the next", metadata: ["reason": "\(error)"])
                }
                if let final = brokers.roundFailed ? error : connectOrNext(&brokers) {
                    attempt.resolve(.failure(final))
                    return
                }
                continue
            }
            let reason = MosquittoLibrary.describe(rc, errno: savedErrno)
            if reconnecting, !engine.connected.load(ordering: .relaxed) {
                reconnectFailed(reason: reason, broker: brokers.current, nextIn: backoff.upcoming)
            } else {
                // on_disconnect has usually reported it already; this covers paths where
                // libmosquitto returns an error without calling it.
                connectionEnded(reason: reason, requested: false)
            }
            brokers.advance()
            reconnecting = reconnect(backoff: &backoff, brokers: &brokers)
        }
    }

    /// Starts connecting to the current broker, moving on past those that fail at once. The error
    /// once every broker failed in a row; nil while an attempt is under way.
    private func connectOrNext(_ brokers: inout BrokerRotation) -> MQTTError? {
        while true {
            let rc = startConnecting(to: brokers.current)
            if rc == MosquittoCode.success { return nil }
            let error = connectError(code: rc, errno: errno, url: brokers.current)
            brokers.advance()
            if brokers.roundFailed { return error }
            logger.info("MQTT broker unreachable; trying the next", metadata: ["reason": "\(error)"])
        }
    }

    /// Credentials (read again, so a rotated password file counts) and a non-blocking connect.
    private func startConnecting(to url: MQTTURL) -> Int32 {
        let options = engine.options
        let mosq = engine.handle.raw
        // Publishes made until the CONNACK is handled wait, so that libmosquitto's resends go first.
        engine.shutGate()
        if let username = options.username, let source = options.passwordSource {
            let rc = mosquitto_username_pw_set(mosq, username, source())
            if rc != MosquittoCode.success { return rc }
        }
        return mosquitto_connect_async(mosq, url.host, Int32(url.port), options.keepAliveSeconds)
    }

    /// Waits (once every broker failed in a row) and starts connecting to the next broker, until
    /// an attempt is under way (`true`; the CONNACK arrives through a later turn) or a stop is
    /// requested.
    private func reconnect(backoff: inout Backoff, brokers: inout BrokerRotation) -> Bool {
        while stop == .none {
            if brokers.urls.count == 1 || brokers.roundFailed {
                guard pause(backoff.next()) else { return false }
            }
            // Reconnecting drops packets libmosquitto had not written yet. The gate first: a QoS 0
            // publish after the ledger forgot would be recorded, and its packet dropped too.
            engine.shutGate()
            engine.ledger.withLock { $0.forgetUnsentQoS0() }
            let rc = startConnecting(to: brokers.current)
            let savedErrno = errno
            if rc == MosquittoCode.success { return true }
            reconnectFailed(
                reason: MosquittoLibrary.describe(rc, errno: savedErrno), broker: brokers.current, nextIn: backoff.upcoming)
            brokers.advance()
        }
        return false
    }

    private func reconnectFailed(reason: String, broker: MQTTURL, nextIn delay: Duration) {
        let failures = failedReconnects.add(1, ordering: .relaxed).newValue
        logger.info("MQTT reconnect failed", metadata: [
            "reason": "\(reason)", "broker": "\(broker)", "attempt": "\(failures)", "next_in": "\(delay)",
        ])
    }

    /// Sleeps in short slices so a stop request is noticed; `false` if one came.
    private func pause(_ duration: Duration) -> Bool {
        let deadline = ContinuousClock.now + duration
        while stop == .none {
            let left = deadline - ContinuousClock.now
            if left <= .zero { return true }
            let slice = min(left, .milliseconds(50))
            let (seconds, attoseconds) = slice.components
            usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
        }
        return false
    }

    /// Turns a failure before the first CONNACK into an error an operator can act on.
    func connectError(code: Int32, errno savedErrno: Int32, url: MQTTURL) -> MQTTError {
        switch code {
        case MosquittoCode.tls, MosquittoCode.tlsHandshake:
            return .tls(host: url.host, port: url.port, reason: MosquittoLibrary.describe(code))
        case MosquittoCode.addressLookup, MosquittoCode.lookup:
            return .unreachable(host: url.host, port: url.port, reason: "cannot resolve host name")
        case MosquittoCode.errno:
            return .unreachable(host: url.host, port: url.port, reason: MosquittoLibrary.describe(code, errno: savedErrno))
        case MosquittoCode.connectionLost, MosquittoCode.noConnection:
            let hint = url.tls ? " (is it a TLS listener?)" : " (a TLS-only listener? try mqtts://)"
            return .unreachable(host: url.host, port: url.port, reason: "connection refused or closed before CONNACK\(hint)")
        case MosquittoCode.keepalive:
            return .unreachable(host: url.host, port: url.port, reason: "no CONNACK within the keep-alive interval")
        case MosquittoCode.protocolError:
            return .unreachable(host: url.host, port: url.port, reason: "protocol error: is this an MQTT broker?")
        default:
            // The network turn's poll, read, write or housekeeping call (`turn`).
            return .library(function: "network turn", code: code, reason: MosquittoLibrary.describe(code, errno: savedErrno))
        }
    }
}
