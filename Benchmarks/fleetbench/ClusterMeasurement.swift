/// One stream through one target: positions/s until every instance alerted its end marker, and
/// what each instance and the brokers spent per position meanwhile.
struct ClusterMeasurement: Sendable {
    var target = ""
    var partitions = 0
    var qos: Int32 = 0
    var published = 0
    var seconds = 0.0
    /// Published positions over (first publish to the last end marker's alert).
    var rate: Double { seconds > 0 ? Double(published) / seconds : 0 }
    /// Per instance: positions of its partition, and its CPU seconds over the same span.
    var positionsPerInstance: [Int] = []
    var cpuSecondsPerInstance: [Double] = []
    /// All instances' CPU by thread name, summed.
    var cpuSecondsByThread: [(name: String, seconds: Double)] = []
    var brokerCPUSeconds: Double?
    var alerts = 0

    /// Each instance's CPU per position of its own partition, microseconds.
    var microsecondsPerPosition: [Double] {
        zip(cpuSecondsPerInstance, positionsPerInstance).map { $1 > 0 ? $0 / Double($1) * 1e6 : 0 }
    }

    /// All instances' CPU over all positions: what one position costs wherever it lands.
    var meanMicrosecondsPerPosition: Double {
        published > 0 ? cpuSecondsPerInstance.reduce(0, +) / Double(published) * 1e6 : 0
    }

    var brokerMicrosecondsPerMessage: Double? {
        brokerCPUSeconds.map { published > 0 ? $0 / Double(published) * 1e6 : 0 }
    }
}

extension ClusterBench {
    func measure(_ target: ClusterTarget, stream: PositionStream, markers: [CrossingProbe], qos: Int32) async throws -> ClusterMeasurement {
        let publisher = try await StreamPublisher.connect(url: target.url, clientID: "fleetbench-cluster-publisher")
        let observer: Observer
        do {
            observer = try await Observer.start(url: target.url, prefixes: ["fleetfence"])
        } catch {
            await publisher.finish()
            throw error
        }
        do {
            let figure = try measure(target, stream: stream, markers: markers, qos: qos, publisher: publisher, observer: observer)
            await publisher.finish()
            await observer.stop()
            return figure
        } catch {
            await publisher.finish()
            await observer.stop()
            throw error
        }
    }

    private func measure(
        _ target: ClusterTarget, stream: PositionStream, markers: [CrossingProbe], qos: Int32, publisher: StreamPublisher,
        observer: Observer
    ) throws -> ClusterMeasurement {
        let alertsBefore = observer.alertCount
        let cpuBefore = target.instances.map { $0.cpuSeconds ?? 0 }
        let threadsBefore = target.instances.map(\.cpuByThread)
        let brokerBefore = target.brokerCPUSeconds
        let outcome = publisher.burst(stream, qos: qos)
        var last: UInt64 = 0
        for marker in markers {
            var arrival: UInt64?
            let start = Monotonic.nanos()
            while arrival == nil, Monotonic.since(start) < settings.phaseLimit {
                arrival = observer.firstAlert(of: marker.device)
                if arrival == nil {
                    for instance in target.instances { try instance.ensureRunning() }
                    Monotonic.sleep(nanoseconds: 1_000_000)
                }
            }
            guard let arrival else {
                throw BenchError.timedOut("\(target.name), QoS \(qos): no alert for \(marker.device) within \(settings.phaseLimit) s")
            }
            last = max(last, arrival)
        }
        var figure = ClusterMeasurement()
        figure.cpuSecondsPerInstance = zip(target.instances, cpuBefore).map { ($0.cpuSeconds ?? 0) - $1 }
        figure.cpuSecondsByThread = Self.sumByName(zip(threadsBefore, target.instances).map { before, instance in
            ProcCPU.spentByName(from: before, to: instance.cpuByThread, total: nil)
        })
        if let brokerBefore, let after = target.brokerCPUSeconds { figure.brokerCPUSeconds = after - brokerBefore }
        figure.target = target.name
        figure.partitions = target.partitions
        figure.qos = qos
        figure.published = stream.count
        figure.seconds = Monotonic.seconds(from: outcome.startNanos, to: last)
        figure.positionsPerInstance = stream.messagesPerPartition(target.partitions)
        figure.alerts = observer.alertCount - alertsBefore
        progress(String(format: "%@, QoS %d: %.0f positions/s", target.name, qos, figure.rate))
        return figure
    }

    private static func sumByName(_ lists: [[(name: String, seconds: Double)]]) -> [(name: String, seconds: Double)] {
        var byName: [String: Double] = [:]
        for list in lists { for (name, seconds) in list { byName[name, default: 0] += seconds } }
        return byName.map { (name: $0.key, seconds: $0.value) }.sorted { $0.seconds > $1.seconds }
    }
}
