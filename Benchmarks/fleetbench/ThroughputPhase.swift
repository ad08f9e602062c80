/// Phase 2: the same stream through the service; done when the end marker's alert arrives, which
/// the service can only send after processing every message before the marker's last sample.
extension BenchRun {
    func measureService(_ service: BenchService, stream: PositionStream, marker: String, qos: Int32) async throws -> BenchResults.Throughput {
        guard let publisher else { throw BenchError.failed("no publisher") }
        let before = try waitForIdle(service)
        let alertsBefore = service.log.snapshot.alerts
        let cpuBefore = service.cpuSeconds
        let threadsBefore = service.cpuByThread
        let writesBefore = service.writesByThread
        let brokerBefore = brokerCPUSeconds
        let outcome = publisher.burst(stream, qos: qos)
        guard let alert = try waitForAlert(of: marker, service: service, limit: settings.phaseLimit) else {
            throw BenchError.timedOut(
                "QoS \(qos): no alert for the end marker \(marker) within \(settings.phaseLimit) s; "
                    + "service counted \(service.log.snapshot.positions - before) of \(stream.count)")
        }
        let cpuAfter = service.cpuSeconds
        let threadsAfter = service.cpuByThread
        let writesAfter = service.writesByThread
        let brokerAfter = brokerCPUSeconds
        let counted = try waitForPositions(service, atLeast: before + stream.count, stall: 3)

        var figure = BenchResults.Throughput()
        figure.published = stream.count
        figure.processed = counted.count - before
        figure.alerts = service.log.snapshot.alerts - alertsBefore
        figure.publisherRate = outcome.acceptRate
        figure.seconds = Monotonic.seconds(from: outcome.startNanos, to: alert)
        figure.rate = Double(stream.count) / figure.seconds
        if let cpuBefore, let cpuAfter { figure.cpuSeconds = cpuAfter - cpuBefore }
        if let brokerBefore, let brokerAfter { figure.brokerCPUSeconds = brokerAfter - brokerBefore }
        figure.cpuSecondsByThread = ProcCPU.spentByName(from: threadsBefore, to: threadsAfter, total: figure.cpuSeconds)
        figure.writesByThread = ProcIO.writtenByName(from: writesBefore, to: writesAfter)
        if figure.processed < stream.count {
            results.notes.append("service QoS \(qos): counted \(figure.processed) of \(stream.count) positions (messages lost?)")
        }
        progress(String(format: "service QoS %d: %.0f positions/s", qos, figure.rate))
        return figure
    }
}
