import CMosquitto
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// libmosquitto's callbacks. C function pointers cannot capture anything, so these are
// free functions that recover their `LoopContext` from `userdata`. They all run on the
// client's network thread, inside its libmosquitto read and write calls.

func installCallbacks(on mosq: OpaquePointer, tracing: Bool) {
    mosquitto_connect_with_flags_callback_set(mosq, mqttDidConnect)
    mosquitto_disconnect_callback_set(mosq, mqttDidDisconnect)
    mosquitto_publish_callback_set(mosq, mqttDidPublish)
    mosquitto_message_callback_set(mosq, mqttDidReceive)
    mosquitto_subscribe_callback_set(mosq, mqttDidSubscribe)
    mosquitto_unsubscribe_callback_set(mosq, mqttDidUnsubscribe)
    // libmosquitto formats a line per packet once a log callback is set: only when asked.
    if tracing { mosquitto_log_callback_set(mosq, mqttLog) }
}

private func context(_ userdata: UnsafeMutableRawPointer?) -> LoopContext? {
    guard let userdata else { return nil }
    return Unmanaged<LoopContext>.fromOpaque(userdata).takeUnretainedValue()
}

private func mqttDidReceive(_: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ message: UnsafePointer<mosquitto_message>?) {
    guard let context = context(userdata) else { return }
    context.handledPacket()
    guard let handler = context.onMessage, let message, let topic = message.pointee.topic else { return }
    let raw = message.pointee
    handler(MQTTMessage(
        topicCString: UnsafePointer(topic),
        payload: UnsafeRawBufferPointer(start: raw.payload, count: Int(raw.payloadlen)),
        qos: raw.qos,
        retain: raw.retain
    ))
}

private func mqttDidPublish(_: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ mid: Int32) {
    guard let context = context(userdata) else { return }
    context.handledPacket()
    if context.engine.ledger.withLock({ $0.acknowledge(mid: mid) }) { context.onAcknowledged?() }
}

private func mqttDidConnect(_: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ rc: Int32, _ flags: Int32) {
    guard let context = context(userdata) else { return }
    context.handledPacket()
    context.didConnect(code: rc, sessionPresent: flags & 1 == 1)
}

private func mqttDidDisconnect(_: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ rc: Int32) {
    let savedErrno = errno
    guard let context = context(userdata) else { return }
    let reason = rc == MosquittoCode.success
        ? "disconnected by request"
        : MosquittoLibrary.describe(rc, errno: savedErrno)
    context.connectionEnded(reason: reason, requested: rc == MosquittoCode.success)
}

private func mqttDidSubscribe(_: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ mid: Int32, _ count: Int32, _ granted: UnsafePointer<Int32>?) {
    guard let context = context(userdata) else { return }
    context.handledPacket()
    let answers = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(count))) } ?? []
    // 0x80 in a SUBACK means the broker refused that filter (typically its ACL). Said once per
    // change: the refused filters are asked for again every few seconds.
    let (changes, settled) = context.engine.subscriptions.withLock { book in
        (book.acknowledged(mid: mid, granted: answers), book.takeSettled())
    }
    if !changes.refused.isEmpty {
        context.logger.error(
            "the MQTT broker refused a subscription (check its ACL)", metadata: ["filters": "\(changes.refused.joined(separator: ","))"])
    }
    if !changes.granted.isEmpty {
        context.logger.notice(
            "the MQTT broker granted a subscription it had refused", metadata: ["filters": "\(changes.granted.joined(separator: ","))"])
    }
    if settled { context.onSubscribed?() }
}

private func mqttDidUnsubscribe(_: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ mid: Int32) {
    guard let context = context(userdata) else { return }
    context.handledPacket()
    let settled = context.engine.subscriptions.withLock { book in
        book.awaitingAck.remove(mid)
        if book.roundTrip == mid { book.roundTrip = nil }
        return book.takeSettled()
    }
    if settled { context.onSubscribed?() }
}

private func mqttLog(_: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ level: Int32, _ text: UnsafePointer<CChar>?) {
    guard let context = context(userdata), let text else { return }
    context.logger.trace("libmosquitto: \(String(cString: text))")
}

extension LoopContext {
    func handledPacket() {
        packetsHandled.wrappingAdd(1, ordering: .relaxed)
    }

    func didConnect(code: Int32, sessionPresent: Bool) {
        guard code == 0 else {
            let reason = MosquittoLibrary.describeConnack(code)
            if !attempt.succeeded {
                attempt.resolve(.failure(.refused(reason: reason, code: code)))
            } else {
                logger.error("the MQTT broker refused the reconnection", metadata: ["reason": "\(reason)"])
            }
            return
        }
        engine.connackHandled()
        engine.markConnectedAndResubscribe()
        let session: Logger.MetadataValue = sessionPresent ? "resumed" : "new"
        if attempt.succeeded {
            let attempts = failedReconnects.exchange(0, ordering: .relaxed) + 1
            logger.notice("MQTT connection restored", metadata: ["attempts": "\(attempts)", "session": session])
        } else {
            logger.info("MQTT connected", metadata: ["session": session, "libmosquitto": "\(MosquittoLibrary.version)"])
        }
        onConnectionChange?(true)
        // Nothing to subscribe (or nothing sent): heard as it is.
        if engine.subscriptions.withLock({ $0.takeSettled() }) { onSubscribed?() }
        attempt.resolve(.success(()))
    }

    /// The connection ended (on_disconnect, or the loop noticed first). Reports it once.
    func connectionEnded(reason: String, requested: Bool) {
        guard engine.connected.exchange(false, ordering: .acquiringAndReleasing) else { return }
        if requested || stop != .none {
            logger.info("MQTT disconnected")
        } else {
            logger.warning("MQTT connection lost; reconnecting", metadata: ["reason": "\(reason)"])
        }
        onConnectionChange?(false)
    }
}
