/// Phase 1: what the broker alone carries from our publisher to a subscriber that only counts.
extension BenchRun {
    func measureCeiling(_ stream: PositionStream, qos: Int32) async throws -> BenchResults.Ceiling {
        let subscriber = try await CountingSubscriber.start(url: brokerURL, filter: "fleet/+/position")
        let publisher = try await StreamPublisher.connect(url: brokerURL, clientID: "fleetbench-ceiling-publisher")
        let brokerBefore = brokerCPUSeconds
        let outcome = publisher.burst(stream, qos: qos)
        let received = subscriber.wait(for: stream.count, stall: 5)
        let subscriberCPU = subscriber.networkThreadCPUSeconds
        let brokerAfter = brokerCPUSeconds
        await publisher.finish()
        await subscriber.stop()

        var ceiling = BenchResults.Ceiling()
        ceiling.published = stream.count
        ceiling.received = received
        ceiling.publisherRate = outcome.acceptRate
        ceiling.seconds = Monotonic.seconds(from: subscriber.firstNanos, to: subscriber.lastNanos)
        ceiling.rate = ceiling.seconds > 0 ? Double(received - 1) / ceiling.seconds : 0
        ceiling.subscriberCPUSeconds = subscriberCPU
        if let brokerBefore, let brokerAfter { ceiling.brokerCPUSeconds = brokerAfter - brokerBefore }
        if received < stream.count {
            results.notes.append("ceiling QoS \(qos): only \(received) of \(stream.count) messages arrived")
        }
        progress(String(format: "ceiling QoS %d: %.0f msg/s", qos, ceiling.rate))
        return ceiling
    }
}
