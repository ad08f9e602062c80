/// Waiting on the service: start-up, an idle moment, a count of processed positions, an alert.
extension BenchRun {
    /// Waits until `service` is online on `statusTopic` and has its fences in effect, or `limit` seconds.
    func waitForStartup(_ service: BenchService, statusTopic: String, fences: Int, limit: Double) throws -> BenchResults.Startup {
        var startup = BenchResults.Startup()
        startup.fences = fences
        startup.timeLimit = limit
        while Monotonic.since(service.startNanos) < limit {
            try service.ensureRunning()
            let log = service.log.snapshot
            if startup.onlineSeconds == nil, let online = observer?.onlineSince(statusTopic), online > service.startNanos {
                startup.onlineSeconds = Monotonic.seconds(from: service.startNanos, to: online)
            }
            if let loaded = log.fencesLoadedNanos {
                startup.readySeconds = Monotonic.seconds(from: service.startNanos, to: loaded)
            }
            if startup.onlineSeconds != nil, startup.readySeconds != nil { break }
            Monotonic.sleep(nanoseconds: 1_000_000)
        }
        startup.fencesAddedAtEnd = service.log.snapshot.fencesAdded
        return startup
    }

    /// Waits until two successive stats lines show the same position count; returns it.
    @discardableResult
    func waitForIdle(_ service: BenchService, limit: Double = 60) throws -> Int {
        let start = Monotonic.nanos()
        var seenLines = service.log.snapshot.statsLines
        var previous: Int?
        while Monotonic.since(start) < limit {
            try service.ensureRunning()
            let log = service.log.snapshot
            if log.statsLines != seenLines {
                seenLines = log.statsLines
                if previous == log.positions { return log.positions }
                previous = log.positions
            }
            Monotonic.sleep(nanoseconds: 20_000_000)
        }
        results.notes.append(String(format: "service still busy after %.0f s of waiting for it to be idle", limit))
        return service.log.snapshot.positions
    }

    /// Waits until the service's stats line counts at least `target` positions; gives up after
    /// `stall` seconds without progress. Returns the count and when it was first seen.
    func waitForPositions(_ service: BenchService, atLeast target: Int, stall: Double) throws -> (count: Int, nanos: UInt64) {
        var last = service.log.snapshot.positions
        var lastProgress = Monotonic.nanos()
        while true {
            try service.ensureRunning()
            let log = service.log.snapshot
            if log.positions >= target { return (log.positions, log.lastStatsNanos) }
            if log.positions != last {
                last = log.positions
                lastProgress = Monotonic.nanos()
            } else if Monotonic.since(lastProgress) > stall {
                return (log.positions, log.lastStatsNanos)
            }
            Monotonic.sleep(nanoseconds: 10_000_000)
        }
    }

    /// Waits for the first alert of `device`: its arrival time, or nil after `limit` seconds.
    func waitForAlert(of device: String, service: BenchService, limit: Double) throws -> UInt64? {
        let start = Monotonic.nanos()
        var checks = 0
        while Monotonic.since(start) < limit {
            if let arrival = observer?.firstAlert(of: device) { return arrival }
            checks += 1
            if checks % 50 == 0 { try service.ensureRunning() }
            Monotonic.sleep(nanoseconds: 1_000_000)
        }
        return nil
    }
}
