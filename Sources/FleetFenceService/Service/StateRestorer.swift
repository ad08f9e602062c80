import FleetFenceCodecs
import Foundation
import GeofenceEngine
import Logging

/// Rebuilds the engine from the journal at start (rule 5): fences with their generations first,
/// then every device's state, so that no enter is repeated and an exit during the downtime is
/// alerted by the queued positions that reveal it.
enum StateRestorer {
    struct Restored {
        var engine: GeofenceEngine
        var origins: [String: JournalFenceRow.Origin]
        /// The fences file as last applied.
        var fileFences: [String: FenceDefinition]
    }

    /// `now`: the restart's wall clock. Silence is counted from it, not from the last sample
    /// before the downtime, so that positions the broker queued meanwhile are heard before a
    /// pending change is confirmed by silence.
    static func restore(from journal: Journal, settings: GeofenceSettings, now: Double, logger: Logger) throws -> Restored {
        var engine = GeofenceEngine(settings: settings)
        var origins: [String: JournalFenceRow.Origin] = [:]
        var fences: [FenceRecord] = []
        for row in try journal.loadFences() {
            let record: FenceRecord
            do {
                record = try JournalFenceRecord.decode(row.record)
            } catch {
                logger.warning("journal: unreadable fence skipped", metadata: ["fence": "\(row.id)", "reason": "\(error)"])
                continue
            }
            fences.append(record)
            origins[row.id] = row.origin
        }
        fences.sort { $0.generation < $1.generation }
        for (id, error) in engine.restoreFences(fences, generation: fences.map(\.generation).max() ?? 0) {
            logger.warning("journal: fence no longer valid", metadata: ["fence": "\(id)", "reason": "\(error)"])
            origins[id] = nil
        }
        let journaledSeq = try journal.maxSeqPerDevice()
        var devices = 0
        for row in try journal.loadDevices() {
            var record: DeviceRecord
            do {
                record = try DeviceRecordEncoding.decode(row.state)
            } catch {
                logger.warning("journal: unreadable device state skipped", metadata: ["device": "\(row.device)", "reason": "\(error)"])
                continue
            }
            // seq never goes back, even if a device row lagged behind its alerts.
            record.seq = max(record.seq, UInt64(max(0, journaledSeq[row.device] ?? 0)))
            if let arrival = record.lastArrival { record.lastArrival = max(arrival, now) }
            engine.restore(record)
            devices += 1
        }
        if devices > 0 || !fences.isEmpty {
            logger.info("state restored from journal", metadata: ["devices": "\(devices)", "fences": "\(fences.count)"])
        }
        var fileFences: [String: FenceDefinition] = [:]
        for (id, bytes) in try journal.loadFileFences() {
            // An unreadable entry counts as changed: the file's version is applied again.
            fileFences[id] = try? FenceDecoder.decodeDefinition(bytes, idFromTopic: nil)
        }
        return Restored(engine: engine, origins: origins, fileFences: fileFences)
    }
}
