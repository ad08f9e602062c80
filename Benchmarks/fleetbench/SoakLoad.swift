import Foundation
import MQTT
import Synchronization

/// The soak's publisher, on a thread of its own (it sleeps between due messages, which no task of
/// the cooperative pool may do for an hour): every second, `rate` positions of the `SoakFleet` with
/// `ts` the wall clock, the share of the fleet churned that second, and one probe device that
/// enters the far-away marker fence (`CrossingProbe`), whose confirming sample's publish time
/// starts the clock of its alert.
final class SoakLoad: Sendable {
    struct Probe: Sendable {
        var device: String
        /// Monotonic time the confirming sample was handed to the client.
        var confirmedNanos: UInt64
    }

    let published = Atomic<Int>(0)
    let dropped = Atomic<Int>(0)
    /// Seconds of load that started late because the one before ran over (a publisher that cannot keep up).
    let lateSeconds = Atomic<Int>(0)
    private let probes = Mutex<[Probe]>([])
    private let stopping = Atomic<Bool>(false)
    private let ended = Atomic<Bool>(false)

    /// Starts publishing at once.
    init(client: MQTTClient, devices: Int, area: FleetArea, seed: UInt64, rate: Double, churnPercent: Double, debounce: Double) {
        let thread = Thread { [self] in
            var fleet = SoakFleet(count: devices, area: area, seed: seed)
            let perSecond = max(4, Int(rate.rounded()))
            let churnPerSecond = Double(devices) * churnPercent / 100 / 60
            var churnDue = 0.0
            let start = Monotonic.nanos()
            var second: UInt64 = 0
            while !stopping.load(ordering: .relaxed) {
                let secondStart = start + second * 1_000_000_000
                let wallStart = Date().timeIntervalSince1970 + (Double(secondStart) - Double(Monotonic.nanos())) / 1e9
                churnDue += churnPerSecond
                fleet.churn(Int(churnDue))
                churnDue -= churnDue.rounded(.down)

                let probe = CrossingProbe(
                    device: "soak-probe-\(second)", fence: FenceSet.marker, startTime: wallStart, debounce: debounce)
                var stream = PositionStream(reservingMessages: perSecond)
                var confirmIndex = -1
                let probeTopic = stream.addTopic(probe.topic)
                for index in 0..<(perSecond - 3) {
                    switch index {
                    case perSecond / 4: stream.append(topic: probeTopic, probe.outside)
                    case perSecond / 2: stream.append(topic: probeTopic, probe.entering)
                    case 3 * perSecond / 4: confirmIndex = stream.append(topic: probeTopic, probe.confirming)
                    default: break
                    }
                    fleet.appendReport(ts: wallStart + Double(index) / Double(perSecond), to: &stream)
                }
                if Monotonic.nanos() > secondStart + 1_000_000_000 { lateSeconds.add(1, ordering: .relaxed) }

                let nanosPerMessage = 1e9 / Double(stream.count)
                stream.withMessages { index, topic, payload in
                    let due = secondStart + UInt64(Double(index) * nanosPerMessage)
                    let now = Monotonic.nanos()
                    if due > now + 50_000 { Monotonic.sleep(nanoseconds: due - now) }
                    if index == confirmIndex {
                        let record = Probe(device: probe.device, confirmedNanos: Monotonic.nanos())
                        probes.withLock { $0.append(record) }
                    }
                    if case .dropped = client.publish(topic: topic, payload: payload, qos: 0) {
                        dropped.add(1, ordering: .relaxed)
                    } else {
                        published.add(1, ordering: .relaxed)
                    }
                    return !stopping.load(ordering: .relaxed)
                }
                second += 1
            }
            ended.store(true, ordering: .releasing)
        }
        thread.name = "soak load"
        thread.start()
    }

    /// The probes whose confirming sample was published in `window` (monotonic nanoseconds).
    func probes(confirmedIn window: Range<UInt64>) -> [Probe] {
        probes.withLock { $0.filter { window.contains($0.confirmedNanos) } }
    }

    /// Stops publishing and waits for the thread to end.
    func stop() async {
        stopping.store(true, ordering: .relaxed)
        while !ended.load(ordering: .acquiring) {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}
