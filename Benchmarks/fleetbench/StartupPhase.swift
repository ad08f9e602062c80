/// Phase 5: a fresh service with a large fences file: time to online and to fences in effect;
/// then the same service restarted on its journal, as an operator's restart or upgrade is.
extension BenchRun {
    func measureLargeStartup(area: FleetArea) throws -> (fresh: BenchResults.Startup, restart: BenchResults.Startup) {
        let generated = FenceSet.generate(count: settings.startupFences, area: area, seed: settings.seed &+ 11, idPrefix: "s")
        let path = directory + "/fences-\(settings.startupFences).geojson"
        try generated.write(to: path)
        let fresh = try timedStart(name: "startup", journal: nil, fencesFile: path, fences: generated.count + 1)
        progress(describe("start-up", fresh, fences: generated.count))
        let restart = try timedStart(name: "restart", journal: "startup", fencesFile: path, fences: generated.count + 1)
        progress(describe("restart on the journal", restart, fences: generated.count))
        return (fresh, restart)
    }

    /// Starts the service, waits for its fences, and stops it cleanly (a restart needs its journal complete).
    private func timedStart(name: String, journal: String?, fencesFile: String, fences: Int) throws -> BenchResults.Startup {
        let service = try launcher.start(
            name: name, journal: journal, fencesFile: fencesFile, clientID: "fleetbench-startup", prefix: "bench-startup",
            positions: "bench-startup-in/+/position")
        defer { service.stop(grace: 5) }
        return try waitForStartup(service, statusTopic: "bench-startup/status", fences: fences, limit: settings.startupLimit)
    }

    private func describe(_ what: String, _ startup: BenchResults.Startup, fences: Int) -> String {
        startup.readySeconds.map { String(format: "%@ with %d fences: ready after %.2f s", what, fences, $0) }
            ?? "\(what) with \(fences) fences: not ready within \(settings.startupLimit) s (\(startup.fencesAddedAtEnd) added)"
    }
}
