import FleetFenceCodecs
import FleetFenceJournal
import Foundation
import GeofenceEngine
import Logging
import Synchronization

/// Rebuilds the engine from the journal at start (docs/rules.md "The rules": state survives restarts): fences with their generations first,
/// then every device's state, so that no enter is repeated and an exit during the downtime is
/// alerted by the queued positions that reveal it.
enum StateRestorer {
    struct Restored {
        var engine: GeofenceEngine
        /// Keyed by the id's bytes, as the engine tells fences apart.
        var origins: [ExactID: JournalFenceRow.Origin]
        /// The fences file as last applied.
        var fileFences: [ExactID: FenceDefinition]
        /// Every entry of that record read: one that is not is applied again from the file, so no
        /// digest of the file may vouch for the record (`FencesFileDigest`).
        var fileRecordComplete = true
        /// The devices restored, for the read side to show before they report again.
        var devices: [String] = []
        /// Restored devices whose row was written at or after the ``PublishedMark``'s time: their
        /// retained state may not have reached the broker.
        var unpublishedStates: [String] = []
        /// Restored devices whose clock came from the journal's clock log, not its folded table:
        /// the service's first fold writes them.
        var unfoldedClocks: [ExactID] = []
    }

    /// `now`: the restart's wall clock. Silence is counted from it, not from the last sample
    /// before the downtime, so that positions the broker queued meanwhile are heard before a
    /// pending change is confirmed by silence. `deviceSlice`: device records decoded at a time.
    /// `publishedMark`: the mark's time, when the journal has one.
    static func restore(
        from journal: Journal, settings: GeofenceSettings, now: Double, logger: Logger, publishedMark: Double? = nil,
        deviceSlice: Int = 20_000
    ) throws -> Restored {
        var engine = GeofenceEngine(settings: settings)
        let (records, journaledOrigins, fileRecords, unreadableFileRows) = try fenceRecords(from: journal, logger: logger)
        // The file's record on a thread of its own, beside the fences' building and the spatial
        // index, which takes one core (a restart with 100,000 fences: 0.76-0.86 s against 0.84-1.03).
        let fileRecord = Mutex<Result<(fences: [ExactID: FenceDefinition], complete: Bool), any Error>?>(nil)
        let fileRecordRead = DispatchGroup()
        DispatchQueue.global().async(group: fileRecordRead) {
            let result = Result {
                try Self.fileRecord(from: journal, records: records, fileRecords: fileRecords, unreadable: unreadableFileRows)
            }
            fileRecord.withLock { $0 = result }
        }
        var origins = journaledOrigins
        let rejected = engine.restoreFences(records, generation: 0) { records, settings in
            records.concurrentMap { record in
                Result { () throws(FenceError) in try Fence(definition: record.definition, settings: settings) }
            }
        }
        for (id, error) in rejected {
            logger.warning("journal: fence no longer valid", metadata: ["fence": "\(id)", "reason": "\(error)"])
            origins[ExactID(id)] = nil
        }
        // Tours before devices: a device's progress is kept only for tours the engine holds.
        for (id, bytes) in try journal.loadTours() {
            do {
                try engine.setTour(try TourDecoder.decodeDefinition(bytes, idFromTopic: id))
            } catch {
                logger.warning("journal: tour no longer valid", metadata: ["tour": "\(id)", "reason": "\(error)"])
            }
        }
        let journaledSeq = try journal.maxSeqPerDevice()
        var devices: [String] = []
        var unpublishedStates: [String] = []
        let rows = try journal.loadDevices()
        // The latest sample of a device that reported after its record was written.
        let stored = try journal.loadDeviceClocks()
        var unfoldedClocks: [ExactID] = []
        devices.reserveCapacity(rows.count)
        // Decoded on every core a slice at a time: a million decoded records at once would
        // raise the service's memory for good (the allocator keeps what it was given).
        for start in stride(from: 0, to: rows.count, by: deviceSlice) {
            let slice = rows[start..<min(rows.count, start + deviceSlice)]
            let decoded = slice.concurrentMap { row in
                Result { () throws(UnreadableRecord) in try DeviceRecordEncoding.decode(row.state) }
            }
            for (row, result) in zip(slice, decoded) {
                var record: DeviceRecord
                switch result {
                case let .success(decoded): record = stored.clocks[ExactID(row.device)]?.applied(to: decoded) ?? decoded
                case let .failure(error):
                    logger.warning(
                        "journal: unreadable device state skipped", metadata: ["device": "\(row.device)", "reason": "\(error)"])
                    continue
                }
                // seq never goes back, even if a device row lagged behind its alerts.
                record.seq = max(record.seq, UInt64(max(0, journaledSeq[ExactID(row.device)] ?? 0)))
                if let arrival = record.lastArrival { record.lastArrival = max(arrival, now) }
                engine.restore(record)
                devices.append(row.device)
                if stored.logged.contains(ExactID(row.device)) { unfoldedClocks.append(ExactID(row.device)) }
                if let publishedMark, let written = row.updatedAt, written >= publishedMark { unpublishedStates.append(row.device) }
            }
        }
        if !devices.isEmpty || !origins.isEmpty {
            logger.info("state restored from journal", metadata: ["devices": "\(devices.count)", "fences": "\(engine.fenceCount)"])
        }
        fileRecordRead.wait()
        let (fileFences, fileRecordComplete) = try fileRecord.withLock { $0! }.get()
        return Restored(
            engine: engine, origins: origins, fileFences: fileFences, fileRecordComplete: fileRecordComplete,
            devices: devices, unpublishedStates: unpublishedStates, unfoldedClocks: unfoldedClocks)
    }

    /// The fences file as last applied, by id, and whether every entry of it was read: each fence
    /// whose row has origin `file` is its own entry (its definition, decoded already), and the
    /// journal's rows of the record say the rest (`JournalSchema`'s version 13). An entry that no
    /// longer reads counts as changed: the file's version is applied again. So does the entry of a
    /// fence whose row has origin `file` but does not read (`unreadable`): an older row of the
    /// record for it is not its entry.
    private static func fileRecord(
        from journal: Journal, records: [FenceRecord], fileRecords: [(id: ExactID, index: Int)], unreadable: Set<ExactID>
    ) throws -> (fences: [ExactID: FenceDefinition], complete: Bool) {
        let fileRows = try journal.loadFileFences()
        let written = entries(of: fileRows, besides: fileRecords).filter { !unreadable.contains(fileRows[$0].id) }
        let decoded = written.concurrentMap { try? FenceDecoder.decodeDefinition(fileRows[$0].definition, idFromTopic: nil) }
        var fileFences: [ExactID: FenceDefinition] = [:]
        fileFences.reserveCapacity(fileRecords.count + written.count)
        for (index, definition) in zip(written, decoded) { fileFences[fileRows[index].id] = definition }
        // After the rows: where both say it, the fence's own row is the newer.
        for entry in fileRecords { fileFences[entry.id] = records[entry.index].definition }
        return (fileFences, !decoded.contains(nil) && unreadable.isEmpty)
    }

    /// The places of the record's rows whose fence is not one of the file's rows (`fileRecords`):
    /// a row of such a fence is an older entry, not read. Both lists are in id order, so they are
    /// walked together; out of order, a row is read for nothing, and the fence's own row still
    /// says its entry.
    static func entries(
        of fileRows: [(id: ExactID, definition: [UInt8])], besides fileRecords: [(id: ExactID, index: Int)]
    ) -> [Int] {
        var next = 0
        return fileRows.indices.filter { row in
            let id = fileRows[row].id
            while next < fileRecords.count, fileRecords[next].id < id { next += 1 }
            return !(next < fileRecords.count && fileRecords[next].id == id)
        }
    }

    /// The journal's fence records, decoded on every core, with their origins, and the file's
    /// ones with their place among the records, in id order; an unreadable row is logged and
    /// skipped, and the ids of the file's among those returned.
    private static func fenceRecords(from journal: Journal, logger: Logger) throws
        -> (
            records: [FenceRecord], origins: [ExactID: JournalFenceRow.Origin],
            fileRecords: [(id: ExactID, index: Int)], unreadableFileRows: Set<ExactID>
        )
    {
        let rows = try journal.loadFences()
        let decoded = rows.concurrentMap { row in Result { try JournalFenceRecord.decode(row.record) } }
        var records: [FenceRecord] = []
        var origins: [ExactID: JournalFenceRow.Origin] = [:]
        var fileRecords: [(id: ExactID, index: Int)] = []
        var unreadableFileRows: Set<ExactID> = []
        records.reserveCapacity(rows.count)
        origins.reserveCapacity(rows.count)
        fileRecords.reserveCapacity(rows.count)
        for (row, result) in zip(rows, decoded) {
            switch result {
            case let .success(record):
                let id = ExactID(row.id)
                origins[id] = row.origin
                if row.origin == .file { fileRecords.append((id, records.count)) }
                records.append(record)
            case let .failure(error):
                logger.warning("journal: unreadable fence skipped", metadata: ["fence": "\(row.id)", "reason": "\(error)"])
                if row.origin == .file { unreadableFileRows.insert(ExactID(row.id)) }
            }
        }
        return (records, origins, fileRecords, unreadableFileRows)
    }
}
