import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wakes the network thread when another thread has queued a packet for it to write.
///
/// libmosquitto wakes its loop through a socketpair: one byte written per packet queued, one
/// byte read back per `mosquitto_loop` turn. A burst of N publishes from the journal's thread
/// (100,000 registry entries at start-up) thus cost the network thread N extra turns, each a
/// select, a read and a write attempt. This wake coalesces: the first signal after the thread
/// last looked writes one byte, later ones only see it pending, and the woken thread writes
/// everything queued at once. The loop does not watch libmosquitto's socketpair at all; its
/// non-blocking writes simply fail once it is full.
final class LoopWake: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32
    /// Set by the first signal since the thread last consumed; later signals skip the write.
    private let pending = Atomic<Bool>(false)

    init() throws(MQTTError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            let code = errno
            throw .library(function: "pipe", code: code, reason: String(cString: strerror(code)))
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// What the network thread polls.
    var descriptor: Int32 { readEnd }

    func signal() {
        guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Called by the network thread before it writes what is queued, so that a packet queued
    /// after that write wakes it again.
    ///
    /// Drained first, cleared second: cleared first, a signal in between would write a byte
    /// that the drain then swallows, leaving `pending` set with nothing in the pipe, and every
    /// later publish would wait for the poll timeout. Cleared by an exchange, not a store: it
    /// reads the flag a publisher set after queueing, so that packet is visible to the
    /// unlocked `mosquitto_want_write` that follows (a plain store would not order that load
    /// on ARM).
    func consume() {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            while read(readEnd, buffer.baseAddress, buffer.count) > 0 {}
        }
        _ = pending.exchange(false, ordering: .acquiringAndReleasing)
    }
}
