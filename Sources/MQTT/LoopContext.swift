import Foundation
import Logging
import Synchronization

/// One run of a client's network thread, from `connect()` to its end. libmosquitto's
/// `userdata` points at it, so the C callbacks (free functions, capturing nothing) get
/// here through `Unmanaged` and find the engine and the handlers.
///
/// Why this hand-off is correct under Swift 6 strict concurrency: the type is `Sendable`
/// and checked as such — its fields are immutable (`let`) references to `Sendable`
/// values, or `Atomic` / `Mutex`. The compiler cannot check what travels through
/// `void *userdata`, so the discipline is: only `Sendable` state is reachable from it,
/// and the pointer is unretained but valid, because the network thread owns a strong
/// reference for as long as it runs and libmosquitto only calls back from inside
/// a network turn (`turn(timeoutMilliseconds:)`) on that thread.
///
/// Why it is cheap: the handlers are copied here once at `connect()`, so delivering a
/// message takes no lock and no allocation — `MQTTMessage` only points into
/// libmosquitto's buffers — and no thread hop: the handler runs on the network thread,
/// and the caller decides whether to hand work elsewhere.
final class LoopContext: Sendable {
    enum StopMode: UInt8 {
        case none = 0
        /// Write the queued DISCONNECT, then end (no will).
        case clean = 1
        /// End at once; the socket closes when the client is destroyed (will published).
        case abrupt = 2
    }

    let engine: ClientEngine
    let onMessage: (@Sendable (MQTTMessage) -> Void)?
    let onConnectionChange: (@Sendable (Bool) -> Void)?
    let onSubscribed: (@Sendable () -> Void)?
    let onAcknowledged: (@Sendable () -> Void)?
    let attempt = ConnectAttempt()
    let exit = ThreadExit()
    private let stopMode = Atomic<UInt8>(StopMode.none.rawValue)
    /// Identity of the network thread while it runs (`Thread` itself is not `Sendable`).
    private let threadID = Mutex<ObjectIdentifier?>(nil)
    /// Failed reconnect attempts since the connection was lost (for the log line).
    let failedReconnects = Atomic<Int>(0)
    /// Callbacks run so far (a packet read, or a QoS 0 publish written): how a read tells a packet
    /// handled from a socket run dry when both leave `errno` EAGAIN (`readArrived`). Only the
    /// network thread touches it.
    let packetsHandled = Atomic<Int>(0)
    /// A drain ended at its cap on a TLS connection: the next turn reads without waiting for the
    /// socket (`turn(timeoutMilliseconds:)`). Only the network thread touches it.
    let bufferedRecords = Atomic(false)

    init(engine: ClientEngine, handlers: ClientEngine.Handlers) {
        self.engine = engine
        self.onMessage = handlers.onMessage
        self.onConnectionChange = handlers.onConnectionChange
        self.onSubscribed = handlers.onSubscribed
        self.onAcknowledged = handlers.onAcknowledged
    }

    var logger: Logger { engine.logger }

    var stop: StopMode {
        StopMode(rawValue: stopMode.load(ordering: .acquiring)) ?? .abrupt
    }

    func requestStop(_ mode: StopMode) {
        // Never downgrade an abrupt stop to a clean one.
        _ = stopMode.compareExchange(expected: StopMode.none.rawValue, desired: mode.rawValue, ordering: .acquiringAndReleasing)
        if mode == .abrupt { stopMode.store(mode.rawValue, ordering: .releasing) }
    }

    var isCurrentThread: Bool {
        threadID.withLock { $0 == ObjectIdentifier(Thread.current) }
    }

    func startThread() {
        let name = engine.options.threadName
        let thread = Thread { [self] in
            // Set from the thread itself, where Linux applies it (15 bytes at most): `top -H` and
            // profilers then tell it from the threads it was started by.
            Thread.current.name = name
            runNetworkLoop()
        }
        threadID.withLock { $0 = ObjectIdentifier(thread) }
        thread.start()
    }

    /// Last steps of the network thread.
    func finish() {
        if engine.connected.exchange(false, ordering: .acquiringAndReleasing) {
            onConnectionChange?(false)
        }
        attempt.resolve(.failure(.cancelled))
        engine.runFinished(self)
        threadID.withLock { $0 = nil }
        exit.signal()
    }
}
