import Foundation
import GeofenceEngine
import Logging
import Synchronization
import Testing

@testable import FleetFenceJournal

/// A step as the writer sees it: what to journal, and a name to recognise it by when delivered.
struct TestStep: JournalStep {
    var changes: JournalChanges
    var heldDevices: [DeviceRecord] {
        get { changes.heldDevices }
        set { changes.heldDevices = newValue }
    }

    init(alerts: [AlertRecord] = [], devices: [DeviceRecord] = [], heldDevices: [DeviceRecord] = []) {
        changes = JournalChanges(alerts: alerts, devices: devices, heldDevices: heldDevices)
    }
}

@Suite("Journal writer", .serialized)
struct JournalWriterTests {
    /// An alert and the device record that goes with it, from a real engine.
    func alertAndRecords() throws -> (alert: Transition, older: DeviceRecord, newer: DeviceRecord) {
        var engine = GeofenceEngine(settings: GeofenceSettings(debounceSeconds: 0))
        try engine.setFence(FenceDefinition(id: "f", shape: .circle(center: Coordinate(lat: 49.29, lon: 8.64), radius: 200)))
        var transitions: [Transition] = []
        engine.process(device: "d", sample: PositionSample(lat: 49.30, lon: 8.64, timestamp: 100), arrival: 100, into: &transitions)
        let older = try #require(engine.deviceRecord(for: "d"))
        engine.process(device: "d", sample: PositionSample(lat: 49.29, lon: 8.64, timestamp: 101), arrival: 101, into: &transitions)
        let newer = try #require(engine.deviceRecord(for: "d"))
        return (try #require(transitions.first), older, newer)
    }

    func step(_ alert: Transition, record: DeviceRecord) -> TestStep {
        TestStep(alerts: [AlertRecord(transition: alert, payload: Array("alert".utf8))], devices: [record])
    }

    func storedTimestamp(_ journal: Journal) throws -> Double? {
        let row = try #require(try journal.loadDevices().first)
        return try JSONDecoder().decode(DeviceRecord.self, from: Data(row.state)).lastTimestamp
    }

    /// A tick's step: an alert with its device's record, and the records of `count` other
    /// devices that may wait.
    func tickStep(_ alert: Transition, record: DeviceRecord, holding count: Int) throws -> TestStep {
        var engine = GeofenceEngine(settings: GeofenceSettings(debounceSeconds: 0))
        var transitions: [Transition] = []
        var held: [DeviceRecord] = []
        for index in 0..<count {
            let device = "held-\(index)"
            engine.process(device: device, sample: PositionSample(lat: 49.3, lon: 8.6, timestamp: 100), arrival: 100, into: &transitions)
            held.append(try #require(engine.deviceRecord(for: device)))
        }
        var tick = step(alert, record: record)
        tick.heldDevices = held
        return tick
    }

    /// The device rows in the journal after each of the writer's transactions, once `step` and
    /// the records it holds are written (`deliveries` transactions), and the devices the writer
    /// said it still held then (`fleetfence_journal_waiting{kind="devices"}`).
    func rowsAfterEachDelivery(of step: TestStep, deliveries: Int) async throws -> (rows: [Int], held: [Int]) {
        let rows = Mutex<[Int]>([])
        let held = Mutex<[Int]>([])
        let runBox = Mutex<Run?>(nil)
        let watch: @Sendable () -> Void = {
            // On the writer thread, between its transactions.
            let (count, holding) = runBox.withLock { run in
                ((try? run?.journal.loadDevices().count) ?? nil, run?.writer.heldDeviceCount ?? -1)
            }
            rows.withLock { $0.append(count ?? -1) }
            held.withLock { $0.append(holding) }
        }
        try await withWriter(checkpointIfDue: watch) { run in
            runBox.withLock { $0 = run }
            run.writer.submit(step)
            let deadline = ContinuousClock.now + .seconds(10)
            while rows.withLock({ $0.count < deliveries }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return (rows.withLock { $0 }, held.withLock { $0 })
    }

    /// The alert's transaction comes before the held records, and they follow in chunks: a tick
    /// under load no longer holds the next alerts up for its hundreds of device rows.
    @Test func heldRecordsFollowTheAlertInChunks() async throws {
        let (alert, _, newer) = try alertAndRecords()
        let (rows, held) = try await rowsAfterEachDelivery(of: try tickStep(alert, record: newer, holding: 1_000), deliveries: 5)
        // After the alert's transaction only its own device; then 250 more per chunk.
        #expect(rows == [1, 251, 501, 751, 1_001])
        #expect(held == [1_000, 750, 500, 250, 0])
    }

    /// Past the limit (a flood of first sightings, the latest-sample times of a large fleet), larger
    /// chunks, so that the writer keeps up; but chunks still, so that an alert never waits behind
    /// the whole backlog.
    @Test func aFloodOfHeldRecordsIsWrittenInLargerChunksDownToTheLimit() async throws {
        let (alert, _, newer) = try alertAndRecords()
        let rows = try await rowsAfterEachDelivery(of: try tickStep(alert, record: newer, holding: 15_000), deliveries: 40).rows
        #expect(rows.count == 40)
        #expect(rows.prefix(5) == [1, 2_001, 4_001, 6_001, 6_251])
        #expect(rows.last == 15_001)
    }

    /// Held records are written oldest first: devices that keep changing under load do not keep
    /// the others waiting. Here every held device changes again after every delivery.
    @Test func everyHeldRecordIsWrittenWhileDevicesKeepChanging() async throws {
        let (alert, _, newer) = try alertAndRecords()
        let again = try tickStep(alert, record: newer, holding: 1_000).heldDevices
        let writerBox = Mutex<JournalWriter<TestStep>?>(nil)
        let journalBox = Mutex<Journal?>(nil)
        let rowsAfterTwentyDeliveries = Mutex<Int?>(nil)
        let deliveries = Atomic<Int>(0)
        let watch: @Sendable () -> Void = {
            // On the writer thread, between its transactions.
            let delivered = deliveries.add(1, ordering: .relaxed).newValue
            if delivered < 20 {
                writerBox.withLock { $0?.submit(TestStep(heldDevices: again)) }
            } else if delivered == 20 {
                let rows = (try? journalBox.withLock { try $0?.loadDevices().count }) ?? nil
                rowsAfterTwentyDeliveries.withLock { $0 = rows }
            }
        }
        try await withWriter(checkpointIfDue: watch) { run in
            writerBox.withLock { $0 = run.writer }
            journalBox.withLock { $0 = run.journal }
            run.writer.submit(TestStep(heldDevices: again))
            let deadline = ContinuousClock.now + .seconds(10)
            while rowsAfterTwentyDeliveries.withLock({ $0 == nil }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            // Ten chunks of 250 by then: each of the 1,000 devices written at least twice over.
            #expect(rowsAfterTwentyDeliveries.withLock { $0 } == 1_000)
            writerBox.withLock { $0 = nil }
        }
    }

    /// A stop that finds records held writes them before it says it has finished: what arrives
    /// after the stop is written on the caller's thread and must not be overtaken by them.
    @Test func aStopWritesWhatIsHeldBeforeItFinishes() async throws {
        let (alert, older, newer) = try alertAndRecords()
        try await withWriter { run throws in
            let held = try tickStep(alert, record: newer, holding: 5_000).heldDevices + [older]
            run.writer.submit(TestStep(heldDevices: held))
            await run.writer.stop()
            run.writer.submit(TestStep(devices: [newer]))
            try await Task.sleep(for: .milliseconds(500))
            #expect(try run.journal.loadDevices().count == 5_001)
            #expect(try storedTimestamp(run.journal) == 101)
        }
    }

    /// A held record never overwrites a newer one: not the record of a step queued after it, and
    /// not a newer held record of the same device (a latest-sample time after a tick's record).
    @Test func aHeldRecordNeverOvertakesANewerOne() async throws {
        let (alert, older, newer) = try alertAndRecords()
        try await withWriter { run throws in
            try await whileTheWriterWaits(run, blocker: step(alert, record: older)) {
                run.writer.submit(TestStep(heldDevices: [older]))
                run.writer.submit(step(alert, record: newer))
            }
            await run.writer.stop()
            #expect(try storedTimestamp(run.journal) == 101)
        }
        try await withWriter { run throws in
            try await whileTheWriterWaits(run, blocker: step(alert, record: older)) {
                run.writer.submit(TestStep(heldDevices: [older]))
                run.writer.submit(TestStep(heldDevices: [newer]))
            }
            await run.writer.stop()
            #expect(try storedTimestamp(run.journal) == 101)
        }
    }

    /// Runs `body` while the writer waits for another connection's write lock with `blocker`
    /// taken: what `body` submits is queued, and taken by the writer in one go afterwards.
    func whileTheWriterWaits(_ run: Run, blocker: TestStep, _ body: () throws -> Void) async throws {
        let other = try SQLiteConnection.open(path: run.journal.path)
        try other.run("BEGIN IMMEDIATE")
        run.writer.submit(blocker)
        let deadline = ContinuousClock.now + .seconds(3)
        while run.writer.queuedSteps > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        try body()
        try other.run("COMMIT")
        try other.close()
    }

    /// After publishing, the writer asks the checkpointer for a pass over the WAL, which copies it
    /// on a thread of its own; the next commit starts the WAL over. The journal no longer
    /// checkpoints inside a commit.
    @Test func theWALIsCopiedAfterPublishingAndStartsOver() async throws {
        let (alert, _, newer) = try alertAndRecords()
        try await withWriter(checkpointFrames: 1) { run in
            run.writer.submit(step(alert, record: newer))
            await run.writer.waitUntilDelivered()
            let deadline = ContinuousClock.now + .seconds(5)
            while run.journal.checkpointPasses == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(run.journal.checkpointPasses == 1)
            // A new journal's schema and the first step.
            let first = run.journal.db.walFrames
            #expect(first >= 20)
            run.writer.submit(step(alert, record: newer))
            await run.writer.waitUntilDelivered()
            // The second step's frames alone.
            #expect(run.journal.db.walFrames < first / 2)
        }
    }

    /// The checkpoint comes after publishing: a slow one (3 s) must not hold the alert up.
    @Test func theCheckpointFollowsPublishing() async throws {
        let (alert, _, newer) = try alertAndRecords()
        let calls = Atomic(0)
        let watch: @Sendable () -> Void = {
            // Only the writer thread calls it: the first call sleeps, then says it ran.
            if calls.load(ordering: .relaxed) == 0 { Thread.sleep(forTimeInterval: 3) }
            calls.add(1, ordering: .relaxed)
        }
        try await withWriter(checkpointIfDue: watch) { run in
            let submitted = ContinuousClock.now
            run.writer.submit(step(alert, record: newer))
            #expect(await run.deliveries(atLeast: 1) == 1)
            #expect(ContinuousClock.now - submitted < .milliseconds(2_500), "delivered before the checkpoint")
            while calls.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(calls.load(ordering: .relaxed) == 1)
        }
    }

    /// After `stop`, steps are written and published on the caller's thread at once: what the
    /// network thread still delivers during a clean stop is not left in a queue nobody reads.
    @Test func afterStopAStepIsJournaledAndPublishedAtOnce() async throws {
        let (alert, _, newer) = try alertAndRecords()
        try await withWriter { run throws in
            await run.writer.stop()
            var late = step(alert, record: newer)
            late.heldDevices = try tickStep(alert, record: newer, holding: 3).heldDevices
            run.writer.submit(late)
            // Journaled before submit returned, held records too: no writer thread is left.
            #expect(try run.journal.rows(device: "d").map(\.event) == ["enter"])
            #expect(try storedTimestamp(run.journal) == 101)
            #expect(try run.journal.loadDevices().count == 4)
            #expect(await run.deliveries(atLeast: 1) == 1)
        }
    }

    struct Run {
        let writer: JournalWriter<TestStep>
        let journal: Journal
        /// Each delivered step, with the alert rows the journal held when it was delivered.
        let delivered: Delivered

        /// How many steps have been delivered, once at least `count` have (or 10 s passed).
        func deliveries(atLeast count: Int) async -> Int {
            let deadline = ContinuousClock.now + .seconds(10)
            while delivered.steps.withLock({ $0.count }) < count, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
            return delivered.steps.withLock { $0.count }
        }
    }

    final class Delivered: Sendable {
        let steps = Mutex<[(step: TestStep, journaledAlerts: Int)]>([])
    }

    /// A writer on a new journal whose deliveries are recorded; stopped and closed after `body`.
    func withWriter(
        checkpointFrames: Int = 1_000, checkpointIfDue: (@Sendable () -> Void)? = nil,
        _ body: (Run) async throws -> Void
    ) async throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path(), checkpointFrames: checkpointFrames)
        let delivered = Delivered()
        let writer = JournalWriter<TestStep>(journal: journal, logger: Logger(label: "test"), checkpointIfDue: checkpointIfDue) {
            steps in
            // What a delivery sees in the journal: every alert of the steps must be there already.
            let rows = (try? journal.rows(limit: 1_000_000).count) ?? -1
            delivered.steps.withLock { $0 += steps.map { ($0, rows) } }
        }
        try await body(Run(writer: writer, journal: journal, delivered: delivered))
        await writer.stop()
        try journal.close()
    }

    /// A clock of `device` whose latest sample, anchor and hearing are all at `time`.
    func clock(_ device: String, at time: Double) -> DeviceClock {
        DeviceClock(device: device, lastTimestamp: time, anchorTime: time, anchorLat: 49.3, anchorLon: 8.6, lastHeard: time)
    }

    /// Clocks are held like records and written by the writer: a device's clock, if written at
    /// all, is never newer than a record of it written afterwards, and a held clock beside a held
    /// record is written with it (the restart applies the newer of the two).
    @Test func heldClocksAreWrittenAndNeverOutliveANewerRecord() async throws {
        let (alert, older, newer) = try alertAndRecords()
        let directory = try JournalDirectory()
        let path = directory.path()
        let journal = try Journal(path: path)
        let writer = JournalWriter<TestStep>(journal: journal, logger: Logger(label: "test")) { _ in }
        var first = TestStep(heldDevices: [older])
        first.changes.heldClocks = [clock("d", at: 100.5), clock("other", at: 50)]
        writer.submit(first)
        var beside = TestStep(heldDevices: [older])
        beside.changes.heldClocks = [clock("beside", at: 7)]
        beside.changes.heldDevices[0].device = "beside"
        writer.submit(beside)
        // d's own record, newer than anything held of it.
        writer.submit(step(alert, record: newer))
        await writer.stop()
        try journal.close()

        let reopened = try Journal(path: path)
        defer { try? reopened.close() }
        let clocks = try reopened.loadDeviceClocks().clocks
        let rows = Dictionary(uniqueKeysWithValues: try reopened.loadDevices().map { ($0.device, $0.state) })
        #expect(clocks[ExactID("other")] == clock("other", at: 50))
        #expect(clocks[ExactID("beside")] == clock("beside", at: 7))
        #expect(rows["beside"] != nil)
        let stored = try DeviceRecordEncoding.decode(try #require(rows["d"]))
        #expect(stored.lastTimestamp == 101)
        if let written = clocks[ExactID("d")] { #expect(written.lastTimestamp < 101) }
    }

    /// Each transaction packs the clocks its steps log into one row of the clock log, tombstones
    /// of the devices forgotten in it among them in the steps' order; a fold's clocks go into
    /// `device_clocks`, and the log's rows written before the fold's first step go only once all
    /// of its clocks are written (docs/operations.md "Journal").
    @Test func loggedClocksAreFoldedAndTheFoldedRowsGoOnlyOnceWritten() async throws {
        let directory = try JournalDirectory()
        let path = directory.path()
        let journal = try Journal(path: path)
        let reader = try Journal(readingOnly: path)
        defer { try? reader.close() }
        @Sendable func count(_ table: String) -> Int64 {
            (try? reader.db.run("SELECT COUNT(*) AS n FROM \(table)").first?.column("n")?.int64Value) ?? -1
        }
        let devices = (0..<1_000).map { "truck-\($0)" }
        // Seen when the fold's own step is delivered: its clocks are held, not written yet.
        let atFoldDelivery = Mutex<(rows: Int64, folded: Int64)?>(nil)
        let writer = JournalWriter<TestStep>(journal: journal, logger: Logger(label: "test")) { steps in
            guard steps.contains(where: { $0.changes.endsClockFold }) else { return }
            atFoldDelivery.withLock { $0 = (count("clock_log"), count("device_clocks")) }
        }
        for second in 1...3 {
            var logged = TestStep()
            logged.changes.loggedClocks = devices.map { clock($0, at: Double(second)) }
            writer.submit(logged)
            await writer.waitUntilDelivered()
        }
        var forgetting = TestStep()
        forgetting.changes.removedDevices = ["truck-7"]
        forgetting.changes.loggedClocks = [clock("truck-8", at: 3.5)]
        writer.submit(forgetting)
        await writer.waitUntilDelivered()
        #expect(count("clock_log") == 4)
        // The fold: every device's clock as it is now (truck-7 forgotten), more than a chunk, in
        // two steps; truck-2 reports and is logged between them, after its clock was folded.
        let folded = devices.filter { $0 != "truck-7" }.map { clock($0, at: 4) }
        var firstPart = TestStep()
        firstPart.changes.heldClocks = Array(folded[..<500])
        firstPart.changes.startsClockFold = true
        writer.submit(firstPart)
        await writer.waitUntilDelivered()
        // In a transaction of its own, after the fold's first: the fold must not cover its row.
        var during = TestStep()
        during.changes.loggedClocks = [clock("truck-2", at: 4.5)]
        writer.submit(during)
        await writer.waitUntilDelivered()
        var lastPart = TestStep()
        lastPart.changes.heldClocks = Array(folded[500...])
        lastPart.changes.endsClockFold = true
        writer.submit(lastPart)
        var after = TestStep()
        after.changes.loggedClocks = [clock("truck-1", at: 5)]
        writer.submit(after)
        await writer.stop()
        try journal.close()

        let seen = try #require(atFoldDelivery.withLock { $0 })
        #expect(seen.rows >= 4, "the log's rows went before the fold's clocks were written")
        #expect(seen.folded < 999)
        // The four rows before the fold went; those written since its first step stay (the
        // writer may take the last two steps in one transaction).
        #expect(count("clock_log WHERE id <= 4") == 0)
        #expect(count("clock_log WHERE id = 5") == 1, "truck-2's row, logged during the fold")
        let reopened = try Journal(path: path)
        defer { try? reopened.close() }
        let clocks = try reopened.loadDeviceClocks().clocks
        #expect(clocks.count == 999)
        #expect(clocks[ExactID("truck-7")] == nil)
        #expect(clocks[ExactID("truck-1")] == clock("truck-1", at: 5))
        #expect(clocks[ExactID("truck-2")] == clock("truck-2", at: 4.5), "logged after its clock was folded")
        #expect(clocks[ExactID("truck-999")] == clock("truck-999", at: 4))
        #expect(try reopened.db.run("SELECT COUNT(*) AS n FROM device_clocks").first?.column("n")?.int64Value == 999)
    }

    /// Nothing is delivered before its transaction has committed: each delivery finds its alerts
    /// (and every earlier one) in the journal.
    @Test func aStepIsDeliveredOnlyOnceItsAlertsAreJournaled() async throws {
        let (alert, _, newer) = try alertAndRecords()
        try await withWriter { run in
            for _ in 0..<50 { run.writer.submit(step(alert, record: newer)) }
            #expect(await run.deliveries(atLeast: 50) == 50)
            let seen = run.delivered.steps.withLock { $0.map(\.journaledAlerts) }
            for (index, rows) in seen.enumerated() { #expect(rows >= index + 1) }
        }
    }

    /// A write that fails delivers nothing, then or later: an alert whose row is not committed is
    /// never published. The writer says so once, and a waiter is not left waiting.
    @Test func aFailedWriteDeliversNothingThenOrLater() async throws {
        let (alert, _, newer) = try alertAndRecords()
        let directory = try JournalDirectory()
        let path = directory.path()
        let journal = try Journal(path: path)
        let delivered = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        let writer = JournalWriter<TestStep>(
            journal: journal, logger: Logger(label: "test"), failed: { reason in failures.withLock { $0.append(reason) } }
        ) { steps in delivered.add(steps.count, ordering: .relaxed) }

        // Positive control: the same step is delivered while the journal can be written.
        writer.submit(step(alert, record: newer))
        await writer.waitUntilDelivered()
        #expect(delivered.load(ordering: .relaxed) == 1)

        // Another connection takes the table away: the next alert's insert fails.
        let other = try SQLiteConnection.open(path: path)
        _ = try other.run("DROP TABLE transitions")
        try other.close()
        for _ in 0..<10 { writer.submit(step(alert, record: newer)) }
        await writer.waitUntilDelivered()
        try await Task.sleep(for: .milliseconds(200))
        #expect(delivered.load(ordering: .relaxed) == 1)
        #expect(failures.withLock { $0.count } == 1)
        #expect(writer.failure != nil)
        await writer.stop()
        try? journal.close()
    }
}
