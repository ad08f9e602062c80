import CMalloc
import FleetFenceJournal
import Foundation
import GeofenceEngine

/// What the service holds for its devices, by part (`GET /api/memory`, docs/http.md "Memory"):
/// counted from the parts' arrays, tables and boxes as the heap gives them out
/// (``AllocatedBytes``), beside the resident size and the allocator's free space; the rest is
/// SQLite's page cache, the fences, the runtime and the libraries.
public struct MemoryReport: Sendable, Equatable {
    /// Devices the engine held when its count ended.
    public var devices = 0
    public var engine = EngineMemory()
    /// The core's marks of devices due for the journal and the read side, and the integrations'
    /// tables of devices (OwnTracks topics, Home Assistant positions).
    public var core = 0
    /// The read side's device views (`/api/devices`, the map).
    public var readSide = 0
    /// Device records and clocks the journal's writer holds back, as of its last transaction.
    public var journalHeld = 0
    /// The process's resident size when the count ended (Linux's `/proc/self/statm`).
    public var resident: Int?
    /// What the allocator holds free in its heaps (glibc's `mallinfo2`): freed, and resident
    /// still, until it is given out again. Only when asked: glibc walks every free block to tell
    /// it, holding each heap's lock in turn, which the allocations from that heap then wait for
    /// (186 ms at a million devices after three rounds of reports, 9-12 ms before;
    /// docs/performance.md "Memory by part").
    public var heapFree: Int?

    public init() {}

    /// Each part by its name in the answer, in the order printed.
    public var parts: [(name: String, bytes: Int)] {
        [
            ("engine_devices", engine.devices), ("engine_regions", engine.regions), ("held_samples", engine.heldSamples),
            ("core", core), ("read_side", readSide), ("journal_held", journalHeld),
        ]
    }

    public var counted: Int { parts.reduce(0) { $0 + $1.bytes } }

    /// Devices (or views) counted per hold of the core's lock (or the read side's), what positions
    /// (or readers) wait behind at most: at a million devices a slice of 2,000 held the core's lock
    /// 0.9-1.3 ms at most, timed inside it (a cache miss or two per device with a record or a
    /// history), the whole count 52-420 ms (docs/performance.md "Memory by part").
    static let slice = 2_000

    static var residentBytes: Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

extension GeofenceService {
    /// Counts what each part holds, a slice at a time under the core's lock and the read side's.
    /// Blocking: call it off any event loop. Unlike other reads it takes the core's lock, so one
    /// count runs at a time (a request meanwhile is refused at once rather than holding one more
    /// thread of the blocking pool), and a request within a second of the last count's end gets
    /// that count: a client asking in a loop costs the positions a count's slices at most every
    /// second. `heapFree`: ask the allocator too (``MemoryReport/heapFree``), once a count.
    public func memory(heapFree: Bool) throws(ServiceUnavailable) -> MemoryReport {
        typealias Last = (report: MemoryReport, at: ContinuousClock.Instant, heapAsked: Bool)
        let answer = try memoryCounts.withLockIfAvailable { (last: inout Last?) throws(ServiceUnavailable) -> MemoryReport in
            if let last, ContinuousClock.now - last.at < .seconds(1), !heapFree || last.heapAsked {
                var report = last.report
                if !heapFree { report.heapFree = nil }
                return report
            }
            var report = try countMemory()
            if heapFree {
                let free = fleetfence_heap_free_bytes()
                report.heapFree = free >= 0 ? free : nil
            }
            last = (report, .now, heapFree)
            return report
        }
        guard let answer else { throw ServiceUnavailable(reason: "a count of memory is under way: ask again in a moment") }
        return answer
    }

    private func countMemory() throws(ServiceUnavailable) -> MemoryReport {
        guard let loop = running.withLock({ $0?.loop }) else {
            throw ServiceUnavailable(reason: "the service is not running")
        }
        var report = MemoryReport()
        var count = EngineMemoryCount()
        while !count.isComplete {
            loop.withCore { core in
                core.engine.countMemory(&count, limit: MemoryReport.slice)
                report.devices = core.engine.deviceCount
            }
            // A position still spinning for the lock gets its chance before the next slice (one
            // sleeping in the kernel is handed the lock anyway).
            sched_yield()
        }
        report.engine = count.memory
        report.core = loop.withCore { $0.countDeviceTableBytes() }
        report.readSide = readModel.countDeviceBytes()
        report.journalHeld = loop.writer.heldBytes
        report.resident = MemoryReport.residentBytes
        return report
    }
}
