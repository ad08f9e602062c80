import CMosquitto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LoopContext {
    /// One turn of the network thread, in place of `mosquitto_loop`: wait for the socket or
    /// the engine's wake, read what arrived, write everything queued, keep the connection
    /// alive. libmosquitto documents these calls for applications with their own loop; this
    /// one replaces only the wake-up (see `LoopWake`). Returns a libmosquitto result code,
    /// as `mosquitto_loop` does.
    func turn(timeoutMilliseconds: Int32) -> Int32 {
        let mosq = engine.handle.raw
        let socket = mosquitto_socket(mosq)
        guard socket >= 0 else { return MosquittoCode.noConnection }
        engine.turns.wrappingAdd(1, ordering: .relaxed)
        // Records TLS has decrypted but not handed over yet are not in the socket: poll would not
        // say so, and they would wait for the next bytes to arrive. Read again at once instead.
        let readAgain = bufferedRecords.exchange(false, ordering: .relaxed)
        let socketEvents = Int16(POLLIN) | (mosquitto_want_write(mosq) ? Int16(POLLOUT) : 0)
        // A tuple, not an array: no allocation per turn.
        var descriptors = (
            pollfd(fd: socket, events: socketEvents, revents: 0),
            pollfd(fd: engine.wake.descriptor, events: Int16(POLLIN), revents: 0)
        )
        let ready = withUnsafeMutablePointer(to: &descriptors) { pair in
            pair.withMemoryRebound(to: pollfd.self, capacity: 2) { poll($0, 2, readAgain ? 0 : timeoutMilliseconds) }
        }
        if ready < 0 {
            return errno == EINTR ? MosquittoCode.success : MosquittoCode.errno
        }
        if descriptors.1.revents != 0 { engine.wake.consume() }
        let readable = readAgain || descriptors.0.revents & Int16(POLLIN | POLLERR | POLLHUP) != 0
        // libmosquitto goes on with a TLS handshake from its read call only (mosquitto_loop
        // also does it when the socket turns writable). A handshake that began before TCP had
        // connected waits for writability: until the CONNACK, that goes to the read call too,
        // or the handshake never moves and poll reports the socket writable forever.
        let handshaking = descriptors.0.revents & Int16(POLLOUT) != 0 && !engine.connected.load(ordering: .relaxed)
        if readable || handshaking {
            let (rc, cut) = readArrived(mosq, drain: readable && !handshaking)
            if cut, mosquitto_ssl_get(mosq) != nil { bufferedRecords.store(true, ordering: .relaxed) }
            // A CONNACK just handled: libmosquitto has queued its resends, what waited goes after them.
            engine.openGateIfConnected()
            if rc != MosquittoCode.success || mosquitto_socket(mosq) < 0 { return rc }
        }
        // Also what the read just queued (PUBACKs, publishes released by a PUBACK, publishes
        // from callbacks): written now rather than on the next turn.
        if mosquitto_want_write(mosq) {
            // max_packets = 1: one call writes the whole queue (libmosquitto 2.0.11 spins its write path that many times: 1000 cost ~11x the CPU per QoS 1 message, measured).
            let rc = mosquitto_loop_write(mosq, 1)
            if rc != MosquittoCode.success || mosquitto_socket(mosq) < 0 { return rc }
        }
        return mosquitto_loop_misc(mosq)
    }

    /// Packets read in one turn at most: then the PUBACKs they queued go out and the wake is
    /// looked at, a fraction of a millisecond later at most.
    static var packetsPerTurn: Int { 64 }

    /// Reads what arrived: with `drain`, packet after packet until the socket has no more (or
    /// `packetsPerTurn`), instead of one packet and back to `poll`. libmosquitto 2.0.11's
    /// `mosquitto_loop_read` reads one packet a call unless QoS 1 or 2 messages of its own are in
    /// flight, which on the listening connection they never are: `poll` was 14% of the network
    /// thread's samples (perf, fleetbench throughput), and draining took the thread from
    /// 6.2-6.6 to 5.5-5.7 µs a position at QoS 0 (three runs each, alternating). A read the
    /// socket ran dry in returns success with `errno` EAGAIN, which ends the drain. So does a
    /// packet whose handling queued one (the PUBACK of a QoS 1 message, a publish its PUBACK
    /// released): libmosquitto then writes a byte to its own wake socketpair, which nobody reads
    /// (`LoopWake`), full, and fails with EAGAIN, and its own loop stops after that packet too.
    /// So a call that handled a packet goes on; the next call, finding the socket dry, handles none.
    /// `cut`: ended at `packetsPerTurn`, not by a read that found nothing.
    private func readArrived(_ mosq: OpaquePointer, drain: Bool) -> (rc: Int32, cut: Bool) {
        var packets = 0
        while true {
            errno = 0
            let handled = packetsHandled.load(ordering: .relaxed)
            let rc = mosquitto_loop_read(mosq, 1)
            packets += 1
            guard drain, rc == MosquittoCode.success, mosquitto_socket(mosq) >= 0 else { return (rc, false) }
            if errno == EAGAIN || errno == EWOULDBLOCK, packetsHandled.load(ordering: .relaxed) == handled { return (rc, false) }
            if packets == Self.packetsPerTurn { return (rc, true) }
        }
    }
}
