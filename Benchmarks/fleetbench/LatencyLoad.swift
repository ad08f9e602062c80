import Histogram

/// The load of a latency measurement: fleet samples at a rate, with probe devices' samples spread
/// evenly among them (each probe's three in order), and which messages confirm an entry.
struct LatencyLoad {
    let stream: PositionStream
    let probes: [CrossingProbe]
    /// Stream index of each probe's confirming sample, in probe order.
    let confirmIndices: [Int]

    init(fleet: inout Fleet, fences: FenceSet, rate: Double, settings: BenchSettings, probePrefix: String) {
        let total = max(Int(rate * settings.latencySeconds), settings.probes * 6)
        let probeMessages = settings.probes * 3
        let stride = max(1, fences.circles.count / settings.probes)
        let startTime = fleet.ts + 100
        probes = (0..<settings.probes).map { number in
            CrossingProbe(
                device: "\(probePrefix)-\(number)", fence: fences.circles[(number * stride) % fences.circles.count],
                startTime: startTime, debounce: settings.debounce)
        }
        let background = fleet.stream(messages: total - probeMessages)
        var stream = PositionStream(topics: fleet.topics, reservingMessages: background.count + probeMessages)
        let probeTopics = probes.map { stream.addTopic($0.topic) }
        var confirmIndices: [Int] = []
        var nextProbeMessage = 0
        var nextBackground = 0
        let slots = background.count + probeMessages
        for slot in 0..<slots {
            let probeSlot = nextProbeMessage < probeMessages
                ? Int((Double(nextProbeMessage) + 0.5) * Double(slots) / Double(probeMessages))
                : Int.max
            if slot >= probeSlot {
                let probe = probes[nextProbeMessage / 3]
                let topic = probeTopics[nextProbeMessage / 3]
                switch nextProbeMessage % 3 {
                case 0: stream.append(topic: topic, probe.outside)
                case 1: stream.append(topic: topic, probe.entering)
                default: confirmIndices.append(stream.append(topic: topic, probe.confirming))
                }
                nextProbeMessage += 1
            } else {
                stream.appendMessage(nextBackground, of: background)
                nextBackground += 1
            }
        }
        self.stream = stream
        self.confirmIndices = confirmIndices
    }

    /// p50, p99, max and mean of `arrival - published` over the probes that arrived (HdrHistogram, µs).
    static func figures(published: [UInt64], arrivals: [UInt64?]) -> BenchResults.Latency {
        var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
        for (index, arrival) in arrivals.enumerated() {
            guard let arrival, arrival > published[index] else { continue }
            _ = histogram.record((arrival - published[index]) / 1_000)
        }
        var latency = BenchResults.Latency()
        latency.probes = published.count
        latency.alerts = Int(histogram.totalCount)
        if histogram.totalCount > 0 {
            latency.p50Milliseconds = Double(histogram.valueAtPercentile(50)) / 1_000
            latency.p99Milliseconds = Double(histogram.valueAtPercentile(99)) / 1_000
            latency.maxMilliseconds = Double(histogram.max) / 1_000
            latency.meanMilliseconds = histogram.mean / 1_000
        }
        return latency
    }
}
