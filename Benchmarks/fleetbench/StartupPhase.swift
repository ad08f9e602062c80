/// Phase 5: a fresh service with a large fences file: time to online and to fences in effect.
extension BenchRun {
    func measureLargeStartup(area: FleetArea) throws -> BenchResults.Startup {
        let generated = FenceSet.generate(count: settings.startupFences, area: area, seed: settings.seed &+ 11, idPrefix: "s")
        let path = directory + "/fences-\(settings.startupFences).geojson"
        try generated.write(to: path)
        let service = try launcher.start(
            name: "startup", fencesFile: path, clientID: "fleetbench-startup", prefix: "bench-startup",
            positions: "bench-startup-in/+/position")
        defer { service.stop(grace: 5) }
        let startup = try waitForStartup(
            service, statusTopic: "bench-startup/status", fences: generated.count + 1, limit: settings.startupLimit)
        progress(
            startup.readySeconds.map { String(format: "start-up with %d fences: ready after %.2f s", generated.count, $0) }
                ?? "start-up with \(generated.count) fences: not ready within \(settings.startupLimit) s (\(startup.fencesAddedAtEnd) added)")
        return startup
    }
}
