import Foundation

/// `fleetbench --cluster`'s table and RESULT line.
struct ClusterReport {
    let measurements: [ClusterMeasurement]
    let notes: [String]
    let settings: BenchSettings

    func print() {
        var lines: [String] = []
        lines.append("fleetbench --cluster: \(settings.devices) devices, \(settings.fences) fences; "
            + "QoS 0 stream \(settings.clusterMessages) positions, QoS 1 stream \(settings.clusterQ1Messages)")
        lines.append(Self.row("target", "QoS", "positions/s", "alerts", "CPU µs/position, each instance (mean)", "by thread, µs/position", "broker µs/msg"))
        for m in measurements {
            let each = m.microsecondsPerPosition.map { String(format: "%.1f", $0) }.joined(separator: " ")
            let threads = m.cpuSecondsByThread.filter { $0.seconds >= 0.005 }.prefix(3).map {
                String(format: "%@ %.1f", $0.name, m.published > 0 ? $0.seconds / Double(m.published) * 1e6 : 0)
            }.joined(separator: ", ")
            lines.append(Self.row(
                m.target, String(m.qos), String(format: "%.0f", m.rate), String(m.alerts),
                "\(each) (\(String(format: "%.1f", m.meanMicrosecondsPerPosition)))", threads,
                m.brokerMicrosecondsPerMessage.map { String(format: "%.1f", $0) } ?? "n/a"))
        }
        for note in notes { lines.append("note: " + note) }
        var result = "RESULT cluster"
        for m in measurements {
            let key = m.target.hasPrefix("mosquitto") ? "mosquitto" : "nats\(m.partitions)"
            result += String(format: " %@_q%d_rate=%.0f %@_q%d_cpu_us=%.2f", key, m.qos, m.rate, key, m.qos, m.meanMicrosecondsPerPosition)
            if let broker = m.brokerMicrosecondsPerMessage { result += String(format: " %@_q%d_broker_us=%.2f", key, m.qos, broker) }
        }
        lines.append(result)
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    private static func row(_ columns: String...) -> String {
        let widths = [22, 4, 12, 7, 40, 42, 0]
        return zip(columns, widths).map { text, width in
            width == 0 ? text : text.padding(toLength: max(width, text.count + 1), withPad: " ", startingAt: 0)
        }.joined()
    }
}
