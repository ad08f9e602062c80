import Dispatch
import FleetFenceCodecs
import Foundation
import GeofenceEngine
import Logging
import MQTT
import Synchronization

/// Journals before it publishes, without making the network thread wait for SQLite.
///
/// The core hands each step's outbox here (under its lock, so steps arrive in the engine's
/// order). One writer thread takes everything that has queued up, writes it in one transaction,
/// and only then publishes its messages, in order. Idle, an alert goes out one write after it was
/// made; under load one transaction carries hundreds of steps (group commit), which is what lets
/// the service keep up with the broker: one transaction per alert capped it at ~15,000 positions/s.
/// Device state is encoded on this thread too, off the network thread.
///
/// Device records that may wait (``Step/heldDevices``: a tick's changed devices, latest-sample
/// times) are held by the writer and written a chunk at a time between deliveries: a tick under
/// load carries hundreds of them, and written in one transaction they held the next alerts up
/// for 10-50 ms.
final class JournalPipeline: Sendable {
    /// One step of the core: what must be durable, then what to say.
    struct Step: Sendable {
        var transitions: [JournalTransition] = []
        var devices: [DeviceRecord] = []
        /// Records that may wait behind later alerts (a tick's dirty devices without an alert of
        /// their own, latest-sample times), written a chunk at a time between deliveries, oldest
        /// first (``HeldRecords``). A later step's record of the same device replaces them.
        var heldDevices: [DeviceRecord] = []
        var fences: [JournalFenceRow] = []
        var removedFences: [String] = []
        /// The record of the fences file as last applied: id to encoded definition.
        var fileFences: [String: [UInt8]] = [:]
        var removedFileFences: [String] = []
        var messages: [Outbox.Message] = []
        /// Fences whose retained registry entries follow the messages. Topics and payloads are
        /// made on the writer thread: for 100,000 fences a third of a second kept out of the core's lock.
        var registry: [Fence] = []

        var isEmpty: Bool {
            transitions.isEmpty && devices.isEmpty && heldDevices.isEmpty && fences.isEmpty && removedFences.isEmpty && fileFences.isEmpty
                && removedFileFences.isEmpty && messages.isEmpty && registry.isEmpty
        }
    }

    private struct Queue {
        var steps: [Step] = []
        /// The writer holds steps it has taken but not yet published.
        var writing = false
        var stopping = false
        var finished = false
    }

    /// Held records written per delivery: small enough that an alert waits a few milliseconds at
    /// most behind a chunk. Past `heldLimit` (a flood of first sightings, the latest-sample times
    /// of a million devices) the excess goes in one transaction, so that the writer keeps up and
    /// never holds more than that after a delivery.
    private static let heldChunk = 250
    private static let heldLimit = 10_000
    private let journal: Journal
    private let client: MQTTClient
    private let layout: TopicLayout
    private let logger: Logger
    /// `journal.checkpointIfDue(idle:)`, called after each delivery; a test may watch it.
    private let checkpointIfDue: @Sendable (_ idle: Bool) -> Void
    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)

    init(
        journal: Journal, client: MQTTClient, layout: TopicLayout, logger: Logger,
        checkpointIfDue: (@Sendable (_ idle: Bool) -> Void)? = nil
    ) {
        self.journal = journal
        self.client = client
        self.layout = layout
        self.logger = logger
        self.checkpointIfDue = checkpointIfDue ?? { idle in journal.checkpointIfDue(idle: idle) }
        Thread.detachNewThread { [self] in
            // Named from the thread itself, where Linux applies it: `top -H` and profilers show it.
            Thread.current.name = "journal-writer"
            run()
        }
    }

    /// Queues `step`. Once stopped, writes and publishes it on the caller's thread instead: the
    /// network thread still delivers (already acknowledged) messages until the client disconnects,
    /// and what they change must not wait in a queue nobody reads.
    func submit(_ step: Step) {
        let wasIdle: Bool? = queue.withLock { queue in
            if queue.finished { return nil }
            queue.steps.append(step)
            return queue.steps.count == 1 && !queue.writing
        }
        guard let wasIdle else {
            deliver([step, Step(devices: step.heldDevices)])
            return
        }
        if wasIdle { wake.signal() }
    }

    /// Steps submitted that the writer has not taken yet.
    var queuedSteps: Int { queue.withLock { $0.steps.count } }

    /// Returns once every step submitted so far is journaled and handed to the MQTT client (held
    /// records aside: under load there may always be some).
    func waitUntilDelivered() async {
        while queue.withLock({ !$0.steps.isEmpty || $0.writing }) {
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Writes and publishes what is queued, then ends the writer thread. Returns once it has.
    func stop(timeout: Duration = .seconds(10)) async {
        queue.withLock { $0.stopping = true }
        wake.signal()
        let deadline = ContinuousClock.now + timeout
        while !queue.withLock({ $0.finished }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    private func run() {
        // Only this thread touches them: the network thread's submit stays an append.
        var held = HeldRecords()
        while true {
            let (steps, stopping) = queue.withLock { queue in
                let steps = queue.steps
                queue.steps.removeAll(keepingCapacity: true)
                queue.writing = !steps.isEmpty
                // Finished in the same hold of the lock that found nothing left: a step submitted
                // after it is delivered by `submit` itself, one submitted before it is in `steps`.
                // Nothing may be held then, or an older held record could follow the newer one
                // such a step writes.
                if steps.isEmpty, held.isEmpty, queue.stopping { queue.finished = true }
                return (steps, queue.stopping)
            }
            if !steps.isEmpty {
                for step in steps {
                    // A step's own records are newer than any held one of the same device.
                    for record in step.devices { held.drop(record.device) }
                    for record in step.heldDevices { held.hold(record) }
                }
                deliver(steps)
                finishDelivery(stillHolding: !held.isEmpty)
            }
            if !held.isEmpty {
                // Stopping, all at once: a million small transactions would outlast the stop.
                let size = stopping ? held.count : max(Self.heldChunk, held.count - Self.heldLimit)
                deliver([Step(devices: held.take(size))])
                finishDelivery(stillHolding: !held.isEmpty)
                continue
            }
            if steps.isEmpty {
                if stopping { return }
                wake.wait()
            }
        }
    }

    /// The steps taken are delivered; then the WAL is checkpointed if due, after publishing: its
    /// fsyncs delay only what comes meanwhile, never what was just written. Idle, with nothing
    /// queued or held, most often nothing. (After stop, closing the journal checkpoints.)
    private func finishDelivery(stillHolding: Bool) {
        let idle = queue.withLock { queue in
            queue.writing = false
            return queue.steps.isEmpty && !stillHolding
        }
        checkpointIfDue(idle)
    }

    private func deliver(_ steps: [Step]) {
        write(steps)
        for step in steps {
            for message in step.messages {
                _ = client.publish(topic: message.topic, payload: message.payload, qos: message.qos, retain: message.retain)
            }
            for fence in step.registry {
                _ = client.publish(
                    topic: layout.fence(fence.id), payload: FenceRegistryPayload.encode(fence), qos: 1, retain: true)
            }
        }
    }

    /// One transaction for every step taken. A failure is logged and the alerts still go out:
    /// an operator would rather see a late duplicate after a restart than lose the alert now.
    private func write(_ steps: [Step]) {
        var transitions: [JournalTransition] = []
        var latest: [String: DeviceRecord] = [:]
        var fences: [String: JournalFenceRow] = [:]
        var removedFences: [String] = []
        var fileFences: [String: [UInt8]] = [:]
        var removedFileFences: [String] = []
        // A fences file arrives in steps of thousands: grown one at a time, these tables rehash.
        latest.reserveCapacity(steps.reduce(0) { $0 + $1.devices.count })
        fences.reserveCapacity(steps.reduce(0) { $0 + $1.fences.count })
        fileFences.reserveCapacity(steps.reduce(0) { $0 + $1.fileFences.count })
        for step in steps {
            transitions += step.transitions
            for record in step.devices { latest[record.device] = record }
            // In order: a fence set again after a removal in the same batch is set.
            for id in step.removedFences {
                fences[id] = nil
                removedFences.append(id)
            }
            for row in step.fences { fences[row.id] = row }
            for id in step.removedFileFences {
                fileFences[id] = nil
                removedFileFences.append(id)
            }
            fileFences.merge(step.fileFences) { _, newer in newer }
        }
        let rows = latest.values.map { JournalDeviceRow(device: $0.device, state: DeviceRecordEncoding.encode($0)) }
        do {
            try journal.write(
                transitions: transitions, devices: rows, fences: fences.values.sorted { $0.id < $1.id },
                removedFences: removedFences, fileFences: fileFences, removedFileFences: removedFileFences)
        } catch {
            logger.error("journal write failed", metadata: ["error": "\(error)"])
        }
    }
}
