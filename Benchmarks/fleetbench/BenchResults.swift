/// Every figure of a run; a phase that did not run leaves its figure nil.
struct BenchResults: Sendable {
    struct Ceiling: Sendable {
        var published = 0
        var received = 0
        /// Received messages per second at the subscriber, first to last message.
        var rate = 0.0
        /// Messages per second `publish` accepted (the publisher's own pace).
        var publisherRate = 0.0
        var seconds = 0.0
        /// CPU time of the counting subscriber's network thread: the floor under the service's
        /// own CPU per position, which reads the same stream through the same client.
        var subscriberCPUSeconds: Double?
        /// The broker's CPU time meanwhile: with the service in its place, compare
        /// `Throughput.brokerCPUSeconds` to see what the service's own messages cost the broker.
        var brokerCPUSeconds: Double?
    }

    struct Throughput: Sendable {
        var published = 0
        /// Positions the service counted (its stats line) once the end marker's alert came.
        var processed = 0
        /// Published messages over (first publish to the end marker's alert).
        var rate = 0.0
        var publisherRate = 0.0
        var seconds = 0.0
        /// Alerts the service published for this stream (each one is a journal transaction).
        var alerts = 0
        /// The service's CPU time (user + system) from the first publish to the end marker's alert.
        var cpuSeconds: Double?
        /// The broker's CPU time over the same span: it also carries the service's alerts and
        /// retained states, and the observer's copy of each alert.
        var brokerCPUSeconds: Double?
        /// The same split by thread name, largest first (`ProcCPU.spentByName`).
        var cpuSecondsByThread: [(name: String, seconds: Double)] = []
        /// Bytes and calls each thread name handed to write calls over the same span
        /// (`ProcIO.writtenByName`).
        var writesByThread: [ProcIO.ThreadWrites] = []
    }

    struct Startup: Sendable {
        var fences = 0
        /// Process start to the retained `status` saying online.
        var onlineSeconds: Double?
        /// Process start to the `fences loaded` log line: the fences are in effect.
        var readySeconds: Double?
        var fencesAddedAtEnd = 0
        var timeLimit = 0.0
    }

    struct Latency: Sendable {
        var targetRate = 0.0
        var achievedRate = 0.0
        var probes = 0
        var alerts = 0
        var p50Milliseconds = 0.0
        var p99Milliseconds = 0.0
        var maxMilliseconds = 0.0
        var meanMilliseconds = 0.0
        /// Positions processed by the end of the run against those published (keeping up?).
        var processed = 0
        var published = 0
    }

    struct ScalePoint: Sendable {
        /// Devices added since the baseline (cumulative).
        var devices = 0
        /// Devices added in this step.
        var added = 0
        var rssBytes = 0
        /// The service's count by part (`/api/memory`), once its memory settled.
        var parts: MemoryParts?
        /// Seconds from the first publish of this step to the service having counted it all.
        var seconds = 0.0
    }

    struct Scale: Sendable {
        var baselineRSSBytes = 0
        var baselineDevices = 0
        var baselineParts: MemoryParts?
        var points: [ScalePoint] = []
        /// Every device of the last step once more, a minute later in event time: each now holds a
        /// sample for merging late ones (docs/rules.md "Late samples"), the most a fleet holds at once.
        var heldRSSBytes: Int?
        var heldParts: MemoryParts?
        var heldDevices = 0
        /// Then `jitteredReports` more of each, a minute ±20% apart, as trackers report.
        var jitteredRSSBytes: Int?
        var jitteredParts: MemoryParts?
        var jitteredReports = 0
    }

    var payloadBytes = 0.0
    var ceilingQoS0: Ceiling?
    var ceilingQoS1: Ceiling?
    var serviceQoS0: Throughput?
    var serviceQoS1: Throughput?
    var startupRun: Startup?
    /// At half the ceiling, as asked.
    var latency: Latency?
    /// At half the service's own QoS 0 rate, when that is below the ceiling's half.
    var latencyUnsaturated: Latency?
    /// The same loads from publisher through the broker to a plain subscriber, no service in the path.
    var brokerPath: Latency?
    var brokerPathUnsaturated: Latency?
    var scale: Scale?
    var stopSeconds: Double?
    var startupLarge: Startup?
    /// The same service started again on the journal the first start left.
    var restartLarge: Startup?
    var notes: [String] = []

    func ratio(_ service: Throughput?, _ ceiling: Ceiling?) -> Double? {
        guard let service, let ceiling, ceiling.rate > 0 else { return nil }
        return service.rate / ceiling.rate
    }

    /// (RSS at the largest step - baseline) / devices added.
    var bytesPerDevice: Double? {
        guard let scale, let last = scale.points.last, last.devices > 0 else { return nil }
        return Double(last.rssBytes - scale.baselineRSSBytes) / Double(last.devices)
    }
}
