import Dispatch
import Foundation
import GeofenceEngine
import Logging
import Synchronization

/// Journals each step before it is acted on, without making the caller wait for SQLite.
///
/// The service's core hands each step here under its lock, so steps arrive in the engine's order.
/// One writer thread takes everything that has queued up, writes it in one transaction, and only
/// then hands the steps, in order, to `deliver` (which publishes them). Idle, an alert goes out
/// one write after it was made; under load one transaction carries hundreds of steps (group
/// commit), which is what lets the service keep up with the broker: one transaction per alert
/// capped it at ~15,000 positions/s. Device state is encoded on this thread too.
///
/// Device records and clocks that may wait (``JournalChanges/heldDevices``,
/// ``JournalChanges/heldClocks``) are held by the writer and written a chunk at a time between
/// deliveries: under load thousands come after each tick, and written in one transaction they
/// held the next alerts up for 10-50 ms.
public final class JournalWriter<Step: JournalStep>: Sendable {
    private struct Queue {
        var steps: [Step] = []
        /// The writer holds steps it has taken but not yet delivered.
        var writing = false
        var stopping = false
        var finished = false
        /// Steps queued and steps delivered since start: a waiter waits for the steps before its
        /// own call only, not for what keeps coming under load.
        var submitted = 0
        var delivered = 0
        /// Set by the first write that failed: nothing is delivered after it.
        var failure: String?
        /// Callers of ``waitUntilDelivered()``, each resumed once `delivered` reaches its count
        /// (or a write fails), and of ``stop(timeout:)``, resumed once the thread has finished.
        var deliveryWaiters: [(upTo: Int, waiter: CheckedContinuation<Void, Never>)] = []
        var finishWaiters: [CheckedContinuation<Void, Never>] = []

        /// The waiters whose wait is over, taken out.
        mutating func takeReadyWaiters() -> [CheckedContinuation<Void, Never>] {
            var ready: [CheckedContinuation<Void, Never>] = []
            deliveryWaiters.removeAll { entry in
                guard entry.upTo <= delivered || failure != nil || finished else { return false }
                ready.append(entry.waiter)
                return true
            }
            if finished {
                ready += finishWaiters
                finishWaiters = []
            }
            return ready
        }
    }

    /// Held records written per delivery: small enough that an alert waits a few milliseconds at
    /// most behind a chunk. Past `heldLimit` waiting (a flood of first sightings, or a fold of the
    /// clock log) `heldBurst` at a time: the writer's rows per second are the same, and an alert
    /// waits behind one chunk at most. Written all at once, each second's excess (some 31,000
    /// latest-sample rows in the soak, when they were upserted every second) made alerts wait
    /// 145-470 ms at p50. A writer that cannot keep up holds more, up to one
    /// record per device.
    private static var heldChunk: Int { 250 }
    private static var heldBurst: Int { 2_000 }
    private static var heldLimit: Int { 10_000 }
    private let journal: Journal
    private let logger: Logger
    private let deliver: @Sendable ([Step]) -> Void
    /// `journal.checkpointIfDue()`, called after each delivery; a test may watch it.
    private let checkpointIfDue: @Sendable () -> Void
    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)
    private let observeCommit: @Sendable (Duration) -> Void
    private let failed: @Sendable (String) -> Void
    /// Asked before each transaction, on the writer's thread: a ``PublishedMark`` that moved is
    /// journaled in it; `awaiting` when published steps wait for the broker's acknowledgement.
    /// An idle writer then waits for ``acknowledgementsMoved()`` (or `markInterval` at most) and
    /// journals the mark at once, so that it follows the acknowledgements within a fraction of a
    /// millisecond: a `kill -9` after them repeats nothing at the next start.
    private let publishedMark: @Sendable () -> (mark: PublishedMark?, awaiting: Bool)
    private let awaitingAcknowledgement = Atomic(false)
    /// `held.count`, for ``heldDeviceCount``: the held records are the writer thread's alone.
    private let heldCount = Atomic(0)
    /// `held.allocatedBytes`, for ``heldBytes``.
    private let heldAllocated = Atomic(0)
    /// Set while the idle writer waits for acknowledgements: only then does one wake it.
    private let waitingForAcknowledgement = Atomic(false)
    private static var markInterval: DispatchTimeInterval { .milliseconds(100) }

    /// `deliver` receives each batch of steps once it is committed, on the writer's thread (or,
    /// after `stop`, on the submitting thread). `observeCommit` is told how long each transaction
    /// took. `failed` is told once, when a write fails: from then on nothing is delivered, since
    /// an alert is published only once its row is committed (docs/operations.md "Limits and failures").
    public init(
        journal: Journal, logger: Logger, checkpointIfDue: (@Sendable () -> Void)? = nil,
        observeCommit: @escaping @Sendable (Duration) -> Void = { _ in },
        failed: @escaping @Sendable (String) -> Void = { _ in },
        publishedMark: @escaping @Sendable () -> (mark: PublishedMark?, awaiting: Bool) = { (nil, false) },
        deliver: @escaping @Sendable ([Step]) -> Void
    ) {
        self.publishedMark = publishedMark
        self.journal = journal
        self.logger = logger
        self.deliver = deliver
        self.observeCommit = observeCommit
        self.failed = failed
        self.checkpointIfDue = checkpointIfDue ?? { journal.checkpointIfDue() }
        Thread.detachNewThread { [self] in
            // Named from the thread itself, where Linux applies it: `top -H` and profilers show it.
            Thread.current.name = "journal-writer"
            run()
        }
    }

    /// Queues `step`. Once stopped, writes and delivers it on the caller's thread instead: the
    /// network thread still delivers (already acknowledged) messages until the client disconnects,
    /// and what they change must not wait in a queue nobody reads.
    public func submit(_ step: Step) {
        let wasIdle: Bool? = queue.withLock { queue in
            if queue.failure != nil { return false }
            if queue.finished { return nil }
            queue.steps.append(step)
            queue.submitted += 1
            return queue.steps.count == 1 && !queue.writing
        }
        guard let wasIdle else {
            commit([step], alsoWriting: HeldRecords.Chunk(records: step.changes.heldDevices, clocks: step.changes.heldClocks))
            return
        }
        if wasIdle { wake.signal() }
    }

    /// The broker acknowledged more: an idle writer waiting for it journals the mark now.
    public func acknowledgementsMoved() {
        if waitingForAcknowledgement.compareExchange(expected: true, desired: false, ordering: .sequentiallyConsistent).exchanged {
            wake.signal()
        }
    }

    /// Why the journal could not be written, once a write failed.
    public var failure: String? { queue.withLock { $0.failure } }

    /// Steps submitted that the writer has not taken yet.
    public var queuedSteps: Int { queue.withLock { $0.steps.count } }

    /// Devices whose records or clocks the writer holds back (``HeldRecords``), as of its last
    /// transaction.
    public var heldDeviceCount: Int { heldCount.load(ordering: .relaxed) }

    /// The heap the held records take (``AllocatedBytes``), as of the writer's last transaction.
    public var heldBytes: Int { heldAllocated.load(ordering: .relaxed) }

    /// Returns once every step submitted so far is journaled and delivered (held records aside:
    /// under load there may always be some).
    public func waitUntilDelivered() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = queue.withLock { queue in
                if queue.delivered >= queue.submitted || queue.failure != nil || queue.finished { return true }
                queue.deliveryWaiters.append((queue.submitted, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Writes and delivers what is queued, held records too, then ends the writer thread.
    /// Returns once it has.
    public func stop(timeout: Duration = .seconds(10)) async {
        queue.withLock { $0.stopping = true }
        wake.signal()
        // Past the timeout the caller goes on (a writer stuck on a full disk must not hold the
        // stop up); the thread finishes what it writes on its own.
        let timer = Task { [self] in
            try? await Task.sleep(for: timeout)
            let waiters = queue.withLock { queue in
                defer { queue.finishWaiters = [] }
                return queue.finishWaiters
            }
            for waiter in waiters { waiter.resume() }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = queue.withLock { queue in
                if queue.finished { return true }
                queue.finishWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
        timer.cancel()
    }

    private func run() {
        // Only this thread touches them: the submitting thread's side stays an append.
        var held = HeldRecords()
        var folds = ClockLogFolds()
        while true {
            let (steps, stopping, finished) = queue.withLock { queue in
                let steps = queue.steps
                queue.steps.removeAll(keepingCapacity: true)
                queue.writing = !steps.isEmpty
                // Finished in the same hold of the lock that found nothing left: a step submitted
                // after it is delivered by `submit` itself, one submitted before it is in `steps`.
                // Nothing may be held then, or an older held record could follow the newer one
                // such a step writes.
                if steps.isEmpty, held.isEmpty, queue.stopping { queue.finished = true }
                return (steps, queue.stopping, queue.finished ? queue.takeReadyWaiters() : [])
            }
            for waiter in finished { waiter.resume() }
            if !steps.isEmpty {
                for step in steps {
                    // A step's own records are newer than any held one of the same device.
                    for record in step.changes.devices { held.drop(record.device) }
                    for device in step.changes.removedDevices { held.drop(device) }
                    // By id, the journal's order, so that a chunk is neighbours (see
                    // `HeldRecords`). A tick's dirty devices come in any order; clocks come sorted
                    // (``JournalChanges/heldClocks``): sorted again here, they were 1.3% of the
                    // service's samples in the soak.
                    for record in step.changes.heldDevices.sorted(by: { ExactID($0.device) < ExactID($1.device) }) {
                        held.hold(record)
                    }
                    for clock in step.changes.heldClocks { held.hold(clock) }
                    folds.note(step.changes, lastLogRow: journal.lastClockLogRow, heldEnd: held.end)
                }
                commit(steps, foldedClockLog: folds.folded(taken: held.taken))
                heldCount.store(held.count, ordering: .relaxed)
                heldAllocated.store(held.allocatedBytes, ordering: .relaxed)
                finishDelivery(delivered: steps.count)
            }
            if !held.isEmpty {
                // Stopping, all at once: a million small transactions would outlast the stop.
                let size = stopping ? held.count : held.count > Self.heldLimit ? Self.heldBurst : Self.heldChunk
                let chunk = held.take(size)
                commit([], alsoWriting: chunk, foldedClockLog: folds.folded(taken: held.taken))
                heldCount.store(held.count, ordering: .relaxed)
                heldAllocated.store(held.allocatedBytes, ordering: .relaxed)
                finishDelivery()
                continue
            }
            if steps.isEmpty {
                if stopping { return }
                if awaitingAcknowledgement.load(ordering: .relaxed) {
                    waitingForAcknowledgement.store(true, ordering: .sequentiallyConsistent)
                    // An acknowledgement that came before the flag was set woke nobody: asked first.
                    if let mark = takeMark() {
                        waitingForAcknowledgement.store(false, ordering: .sequentiallyConsistent)
                        commit([], mark: mark)
                        continue
                    }
                    _ = wake.wait(timeout: .now() + Self.markInterval)
                    waitingForAcknowledgement.store(false, ordering: .sequentiallyConsistent)
                    // Steps that came meanwhile carry the mark in their own transaction.
                    if queue.withLock({ $0.steps.isEmpty }), let mark = takeMark() { commit([], mark: mark) }
                } else {
                    wake.wait()
                }
            }
        }
    }

    /// The steps taken are delivered; then the WAL is checkpointed if due, after publishing:
    /// what this thread copies itself delays only what comes meanwhile, never what was just
    /// written. (After stop, closing the journal checkpoints.)
    private func finishDelivery(delivered: Int = 0) {
        let waiters = queue.withLock { queue in
            queue.writing = false
            queue.delivered += delivered
            return delivered > 0 ? queue.takeReadyWaiters() : []
        }
        for waiter in waiters { waiter.resume() }
        checkpointIfDue()
    }

    /// One transaction for `steps` (and `held`, device state without a step of its own), then
    /// the steps are delivered. A failed write delivers nothing, then or later: an alert whose row
    /// is not committed would be forgotten by a restart, its seq reused. The service stops instead
    /// and a supervisor restarts it, while the broker keeps the positions (docs/operations.md "Limits and
    /// failures").
    private func commit(
        _ steps: [Step], alsoWriting held: HeldRecords.Chunk = .init(), foldedClockLog: Int64? = nil, mark: PublishedMark? = nil
    ) {
        guard queue.withLock({ $0.failure == nil }) else { return }
        let clock = ContinuousClock()
        let start = clock.now
        do {
            // A closure, not `\.changes`: a key path through the generic `Step` is made at run time
            // on every commit (perf: 1% of the service's samples under load, the writer's).
            try write(steps.map { $0.changes }, held: held, foldedClockLog: foldedClockLog, mark: mark ?? takeMark())
        } catch {
            let reason = "\(error)"
            logger.critical("journal write failed; publishing nothing more", metadata: ["error": "\(reason)"])
            let waiters = queue.withLock { queue in
                queue.failure = reason
                queue.steps.removeAll()
                return queue.takeReadyWaiters()
            }
            for waiter in waiters { waiter.resume() }
            failed(reason)
            return
        }
        if steps.isEmpty && held.isEmpty { return }
        observeCommit(clock.now - start)
        if !steps.isEmpty {
            deliver(steps)
            awaitingAcknowledgement.store(true, ordering: .relaxed)
        }
    }

    private func takeMark() -> PublishedMark? {
        let (mark, awaiting) = publishedMark()
        awaitingAcknowledgement.store(awaiting, ordering: .relaxed)
        return mark
    }

    private func write(
        _ changes: [JournalChanges], held: HeldRecords.Chunk, foldedClockLog: Int64?, mark: PublishedMark?
    ) throws {
        var alerts: [AlertRecord] = []
        // Keyed by bytes, as ids are told apart (docs/operations.md "Limits and failures").
        var latest: [ExactID: DeviceRecord] = [:]
        var fences: [ExactID: JournalFenceRow] = [:]
        var removedFences: [String] = []
        var fileFences: [ExactID: [UInt8]] = [:]
        var removedFileFences: [String] = []
        var fencesFileDigest: FencesFileDigest.Change?
        var removedDevices: [String] = []
        var ownTracksTopics: [OwnTracksTopic] = []
        var tours: [ExactID: [UInt8]] = [:]
        var removedTours: [String] = []
        var pruneBefore: Double?
        // One row of the clock log for the transaction, its entries in the steps' order: a device
        // forgotten after a clock of it voids that clock, one seen again after is logged again.
        var clockLog: [UInt8] = []
        // A fences file arrives in steps of thousands: grown one at a time, these tables rehash.
        latest.reserveCapacity(changes.reduce(held.records.count) { $0 + $1.devices.count })
        fences.reserveCapacity(changes.reduce(0) { $0 + $1.fences.count })
        fileFences.reserveCapacity(changes.reduce(0) { $0 + $1.fileFences.count })
        // Held records are the oldest: any step's record of the same device replaces them (the
        // run loop dropped such a device's held clock already).
        for record in held.records { latest[ExactID(record.device)] = record }
        for change in changes {
            alerts += change.alerts
            // A device forgotten and seen again in one batch is written again.
            for device in change.removedDevices {
                latest[ExactID(device)] = nil
                removedDevices.append(device)
            }
            for record in change.devices { latest[ExactID(record.device)] = record }
            // In order with the removals: a device forgotten and seen again is written again.
            if !change.removedDevices.isEmpty, !ownTracksTopics.isEmpty {
                let removed = Set(change.removedDevices.map { ExactID($0) })
                ownTracksTopics.removeAll { removed.contains(ExactID($0.device)) }
            }
            ownTracksTopics += change.ownTracksTopics
            ClockLog.append(forgotten: change.removedDevices, clocks: change.loggedClocks, to: &clockLog)
            if let cutoff = change.pruneAlertsBefore { pruneBefore = max(pruneBefore ?? cutoff, cutoff) }
            // In order: a fence set again after a removal in the same batch is set.
            for id in change.removedFences {
                fences[ExactID(id)] = nil
                removedFences.append(id)
            }
            for row in change.fences { fences[ExactID(row.id)] = row }
            for id in change.removedFileFences {
                fileFences[ExactID(id)] = nil
                removedFileFences.append(id)
            }
            fileFences.merge(change.fileFences) { _, newer in newer }
            fencesFileDigest = change.fencesFileDigest ?? fencesFileDigest
            for id in change.removedTours {
                tours[ExactID(id)] = nil
                removedTours.append(id)
            }
            tours.merge(change.tours) { _, newer in newer }
        }
        let rows = latest.values.map { JournalDeviceRow(device: $0.device, state: DeviceRecordEncoding.encode($0)) }
        // In id order, the keys sorted alone: sorting (id, row) pairs retained rows as they were
        // compared, and with the file's record (sorted the same way) took 0.29 s of the writer's
        // 0.50 s of CPU for a 100,000-fence file; sorted so, 0.13 s.
        try journal.write(
            alerts: alerts, devices: rows, clocks: held.clocks, removedDevices: removedDevices, fences: fences.keys.sortedByID().compactMap { fences[$0] },
            removedFences: removedFences, fileFences: fileFences, removedFileFences: removedFileFences, fencesFileDigest: fencesFileDigest,
            tours: tours, removedTours: removedTours, ownTracksTopics: ownTracksTopics, clockLog: clockLog.isEmpty ? nil : clockLog,
            foldedClockLog: foldedClockLog, mark: mark)
        if let pruneBefore {
            let pruned = try journal.prune(before: pruneBefore, limit: Self.pruneChunk)
            if pruned > 0 { logger.debug("alerts past retention pruned", metadata: ["rows": "\(pruned)"]) }
        }
    }

    /// Alerts pruned per request: a few milliseconds of the writer's time. Asked for every second,
    /// that is 1,000 alerts a second, several times what a busy fleet alerts.
    private static var pruneChunk: Int { 1_000 }
}

/// Folds of the clock log as the writer sees them (``JournalChanges/startsClockFold``): a fold
/// covers the log's rows committed before its first step, and they may go once its clocks,
/// held like device records (``HeldRecords``), are all written.
struct ClockLogFolds {
    /// The last log row before the fold under way began.
    private var start: Int64?
    /// Folds whose clocks are held: done once `HeldRecords.taken` reaches `barrier`.
    private var waiting: [(barrier: Int, through: Int64)] = []
    /// The log's rows up to here are folded; the journal deletes a few with each write.
    private var through: Int64?

    /// A step taken: `lastLogRow` is the log's last row before this step's batch (whose own row
    /// comes after it, so a device logged in it is the next fold's), `heldEnd` the held
    /// records' end once the step's clocks are held.
    mutating func note(_ changes: JournalChanges, lastLogRow: @autoclosure () -> Int64, heldEnd: Int) {
        if changes.startsClockFold { start = lastLogRow() }
        if changes.endsClockFold, let start {
            waiting.append((heldEnd, start))
            self.start = nil
        }
    }

    /// The log's rows folded so far, once the held records have taken `taken` places.
    mutating func folded(taken: Int) -> Int64? {
        while let fold = waiting.first, fold.barrier <= taken {
            through = fold.through
            waiting.removeFirst()
        }
        return through
    }
}
