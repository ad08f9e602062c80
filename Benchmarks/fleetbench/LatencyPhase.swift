/// Phase 3: alert latency under load. The fleet keeps driving at half the broker's QoS 0 ceiling;
/// between its samples, probe devices each enter a fence, and the publish time of the sample that
/// confirms each entry is set against the arrival of that device's alert.
extension BenchRun {
    func measureLatency(_ service: BenchService, load: LatencyLoad, rate: Double, probePrefix: String) async throws -> BenchResults.Latency {
        guard let publisher else { throw BenchError.failed("no publisher") }
        let stream = load.stream
        let probes = load.probes

        let before = try waitForIdle(service)
        let (outcome, published) = publisher.paced(stream, qos: 0, rate: rate, timed: load.confirmIndices)
        // Whatever backlog the service built up drains first; then each probe's alert (they may still
        // queue behind the service's other QoS 1 publishes), or give up 15 s later.
        let counted = try waitForPositions(service, atLeast: before + stream.count, stall: 5)
        let waitStart = Monotonic.nanos()
        var arrivals = [UInt64?](repeating: nil, count: probes.count)
        while true {
            for index in probes.indices where arrivals[index] == nil {
                arrivals[index] = observer?.firstAlert(of: probes[index].device)
            }
            if !arrivals.contains(where: { $0 == nil }) || Monotonic.since(waitStart) > 15 { break }
            try service.ensureRunning()
            Monotonic.sleep(nanoseconds: 10_000_000)
        }

        writeLatencies(probes: probes, published: published, arrivals: arrivals, start: outcome.startNanos, name: probePrefix)
        var latency = LatencyLoad.figures(published: published, arrivals: arrivals)
        latency.targetRate = rate
        latency.achievedRate = Double(outcome.messages) / Monotonic.seconds(from: outcome.startNanos, to: outcome.endNanos)
        latency.published = stream.count
        latency.processed = counted.count - before
        if latency.alerts < probes.count {
            results.notes.append(String(
                format: "latency at %.0f msg/s: %d of %d probe alerts missing", rate, probes.count - latency.alerts, probes.count))
        }
        progress(String(format: "latency at %.0f msg/s: p50 %.3f ms, p99 %.3f ms, max %.3f ms",
                        rate, latency.p50Milliseconds, latency.p99Milliseconds, latency.maxMilliseconds))
        return latency
    }

    /// `latency-<name>.csv` in the run's directory: when each probe confirmed, and its alert's delay.
    func writeLatencies(probes: [CrossingProbe], published: [UInt64], arrivals: [UInt64?], start: UInt64, name: String) {
        var text = "device,published_s,latency_ms\n"
        for (index, probe) in probes.enumerated() {
            let delay = arrivals[index].map { String(format: "%.3f", Double(Int64($0) - Int64(published[index])) / 1e6) } ?? ""
            text += "\(probe.device)," + String(format: "%.4f", Monotonic.seconds(from: start, to: published[index])) + ",\(delay)\n"
        }
        try? text.write(toFile: directory + "/latency-\(name).csv", atomically: true, encoding: .utf8)
    }
}

extension BenchRun {
    /// Without the throughput phase the service has never seen the fleet: every device's first
    /// sample would be a first sight (a retained state and a journal row each, 10,000 of them
    /// within the first half second), and the probes confirming then would time that one-off
    /// burst instead of alerts under steady load. One round of the fleet, processed, first.
    func warmUp(_ service: BenchService, fleet: inout Fleet) throws {
        guard let publisher else { throw BenchError.failed("no publisher") }
        let before = try waitForIdle(service)
        let round = fleet.stream(messages: settings.devices)
        _ = publisher.burst(round, qos: 0)
        _ = try waitForPositions(service, atLeast: before + round.count, stall: 5)
        _ = try waitForIdle(service)
        progress("warm-up: \(round.count) fleet devices seen by the service")
    }
}
