import Foundation

/// The table and the RESULT line.
struct Report {
    let results: BenchResults
    let settings: BenchSettings

    private struct Row {
        var what: String
        var figure: String
        var target: String = ""
        var verdict: String = ""
    }

    func print() {
        var rows: [Row] = []
        let r = results
        rows.append(Row(what: "payload (average)", figure: String(format: "%.0f bytes", r.payloadBytes)))
        for (qos, ceiling) in [(0, r.ceilingQoS0), (1, r.ceilingQoS1)] {
            guard let ceiling else { continue }
            rows.append(Row(
                what: "broker ceiling QoS \(qos)",
                figure: String(format: "%.0f msg/s (%d/%d received in %.2f s; publisher accepted %.0f/s)",
                               ceiling.rate, ceiling.received, ceiling.published, ceiling.seconds, ceiling.publisherRate)))
            rows += [
                cpuRow(
                    "  subscriber CPU QoS \(qos)", ceiling.subscriberCPUSeconds, per: ceiling.received, "message",
                    "its network thread, a client that only counts"),
                cpuRow("  broker CPU QoS \(qos)", ceiling.brokerCPUSeconds, per: ceiling.received, "message", ""),
            ].compactMap { $0 }
        }
        if let startup = r.startupRun {
            rows.append(startupRow("service start, \(startup.fences) fences", startup, target: nil))
        }
        for (qos, service, ceiling) in [(0, r.serviceQoS0, r.ceilingQoS0), (1, r.serviceQoS1, r.ceilingQoS1)] {
            guard let service else { continue }
            let ratio = r.ratio(service, ceiling)
            rows.append(Row(
                what: "fleetfence QoS \(qos)",
                figure: String(format: "%.0f pos/s (%d/%d processed in %.2f s, %d alerts; publisher accepted %.0f/s)",
                               service.rate, service.processed, service.published, service.seconds, service.alerts,
                               service.publisherRate)))
            rows.append(Row(
                what: "  ratio to ceiling QoS \(qos)", figure: ratio.map { String(format: "%.3f", $0) } ?? "n/a",
                target: ">= 0.9", verdict: verdict(ratio.map { $0 >= 0.9 })))
            rows += [
                cpuRow("  service CPU QoS \(qos)", service.cpuSeconds, per: service.processed, "position", ""),
                cpuRatioRow(qos, service, ceiling),
                cpuRow(
                    "  broker CPU QoS \(qos)", service.brokerCPUSeconds, per: service.processed, "position",
                    "with the service's alerts and states"),
            ].compactMap { $0 }
            let threads = service.cpuSecondsByThread.filter { $0.seconds >= 0.005 }
            if !threads.isEmpty {
                let perPosition = threads.map {
                    String(format: "%@ %.2f", $0.name, Self.microseconds($0.seconds, per: service.processed))
                }
                rows.append(Row(what: "    by thread (µs/position)", figure: perPosition.joined(separator: ", ")))
            }
            // The journal's threads (`ProcIO`: the writer's calls include a wake-up per message it
            // publishes): what the alerts' transactions and the device rows cost in writes.
            let journal = service.writesByThread.filter { ["journal-writer", "wal-checkpoint"].contains($0.name) }
            if !journal.isEmpty {
                let perPosition = journal.map {
                    String(format: "%@ %.0f B in %.2f calls", $0.name, Double($0.bytes) / Double(max(service.processed, 1)),
                           Double($0.calls) / Double(max(service.processed, 1)))
                }
                let perAlert = service.alerts == 0 ? "" : journal.first { $0.name == "journal-writer" }.map {
                    String(format: "; the writer's bytes over the alerts: %.1f kB", Double($0.bytes) / 1000 / Double(service.alerts))
                } ?? ""
                rows.append(Row(what: "    writes by thread (a position)", figure: perPosition.joined(separator: ", ") + perAlert))
            }
        }
        let latencies = [
            ("alert latency @ half ceiling", r.latency, true), ("  broker path alone, same load", r.brokerPath, false),
            ("alert latency @ half service rate", r.latencyUnsaturated, false),
            ("  broker path alone, same load", r.brokerPathUnsaturated, false),
        ]
        for (label, latency, judged) in latencies {
            guard let latency else { continue }
            // Judged against the broker path's p99 in the same run: the host's load moves both.
            let allowance = judged ? r.brokerPath.map { $0.p99Milliseconds + 2 } : nil
            let indent = label.hasPrefix(" ") ? "  " : ""
            rows.append(Row(
                what: label,
                figure: String(format: "%.0f msg/s asked, %.0f achieved; %d/%d timed; %d/%d positions processed",
                               latency.targetRate, latency.achievedRate, latency.alerts, latency.probes,
                               latency.processed, latency.published)))
            rows.append(Row(
                what: indent + "  p50 / p99",
                figure: String(format: "%.3f ms / %.3f ms", latency.p50Milliseconds, latency.p99Milliseconds),
                target: allowance.map { String(format: "p99 < %.1f ms (broker path's + 2)", $0) } ?? "",
                verdict: allowance.map { verdict(latency.alerts > 0 ? latency.p99Milliseconds < $0 : nil) } ?? ""))
            rows.append(Row(what: indent + "  max (mean)", figure: String(format: "%.3f ms (%.3f ms)", latency.maxMilliseconds, latency.meanMilliseconds)))
        }
        if let scale = r.scale {
            rows.append(Row(what: "RSS, \(scale.baselineDevices) devices known", figure: megabytes(scale.baselineRSSBytes)))
            for point in scale.points {
                let isMillion = point.devices >= 1_000_000
                rows.append(Row(
                    what: "RSS, +\(point.devices) devices",
                    figure: megabytes(point.rssBytes) + String(format: " (step of %d counted after %.1f s, %.0f first sights/s)",
                                                               point.added, point.seconds, Double(point.added) / max(point.seconds, 1e-9)),
                    target: isMillion ? "< 1 GB" : "", verdict: isMillion ? verdict(point.rssBytes < 1 << 30) : ""))
            }
            if let bytes = r.bytesPerDevice {
                rows.append(Row(what: "  bytes per device", figure: String(format: "%.0f", bytes), target: "<= 200",
                                verdict: verdict(bytes <= 200)))
            }
            if let last = scale.points.last, let parts = last.parts {
                rows += partRows(parts, since: scale.baselineParts, devices: last.devices, resident: last.rssBytes - scale.baselineRSSBytes)
            }
            if let held = scale.heldRSSBytes, let last = scale.points.last, scale.heldDevices > 0 {
                rows.append(Row(
                    what: "  + held for late samples, each device after a gap",
                    figure: String(format: "%+.0f B a device", Double(held - last.rssBytes) / Double(scale.heldDevices))
                        + " (RSS " + megabytes(held) + ")"))
                if let parts = scale.heldParts, let before = last.parts {
                    rows += partRows(parts, since: before, devices: scale.heldDevices, resident: held - last.rssBytes)
                }
                if let jittered = scale.jitteredRSSBytes {
                    rows.append(Row(
                        what: "  + \(scale.jitteredReports) reports more, a minute ±20% apart",
                        figure: String(format: "%+.0f B a device", Double(jittered - held) / Double(scale.heldDevices))
                            + " (RSS " + megabytes(jittered) + ")"))
                    if let parts = scale.jitteredParts, let before = scale.heldParts {
                        rows += partRows(parts, since: before, devices: scale.heldDevices, resident: jittered - held)
                    }
                }
            }
        }
        if let stop = r.stopSeconds {
            rows.append(Row(what: "service stop (SIGTERM to exit)", figure: String(format: "%.2f s", stop)))
        }
        if let startup = r.startupLarge {
            rows.append(startupRow("service start, \(startup.fences) fences", startup, target: 1))
        }
        if let restart = r.restartLarge {
            rows.append(startupRow("service restart on its journal, \(restart.fences) fences", restart, target: 1))
        }

        let widths = (
            rows.map(\.what.count).max() ?? 0, rows.map(\.figure.count).max() ?? 0, rows.map(\.target.count).max() ?? 0
        )
        func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
        let header = pad("measure", widths.0) + "  " + pad("figure", widths.1) + "  " + pad("target", widths.2) + "  verdict"
        Swift.print(header)
        Swift.print(String(repeating: "-", count: header.count))
        for row in rows {
            Swift.print(pad(row.what, widths.0) + "  " + pad(row.figure, widths.1) + "  " + pad(row.target, widths.2) + "  " + row.verdict)
        }
        for note in r.notes { Swift.print("note: \(note)") }
        Swift.print(resultLine)
    }

    var resultLine: String {
        let r = results
        func value(_ number: Double?, _ format: String) -> String { number.map { String(format: format, $0) } ?? "n/a" }
        let millionPoint = r.scale?.points.last
        func seconds(_ startup: BenchResults.Startup?) -> String {
            guard let startup else { return "n/a" }
            return startup.readySeconds.map { String(format: "%.2f", $0) } ?? String(format: ">%.0f", startup.timeLimit)
        }
        let fields: [(String, String)] = [
            ("ceiling_q0", value(r.ceilingQoS0?.rate, "%.0f")),
            ("ceiling_q1", value(r.ceilingQoS1?.rate, "%.0f")),
            ("service_q0", value(r.serviceQoS0?.rate, "%.0f")),
            ("service_q1", value(r.serviceQoS1?.rate, "%.0f")),
            ("ratio_q0", value(r.ratio(r.serviceQoS0, r.ceilingQoS0), "%.3f")),
            ("ratio_q1", value(r.ratio(r.serviceQoS1, r.ceilingQoS1), "%.3f")),
            ("p50_ms", value(r.latency?.p50Milliseconds, "%.3f")),
            ("p99_ms", value(r.latency?.p99Milliseconds, "%.3f")),
            ("max_ms", value(r.latency?.maxMilliseconds, "%.3f")),
            ("bytes_per_device", value(r.bytesPerDevice, "%.0f")),
            ("rss_mb_1m_devices", value(millionPoint.map { Double($0.rssBytes) / 1_048_576 }, "%.0f")),
            ("startup_s_100k_fences", seconds(r.startupLarge)),
            ("restart_s_100k_fences", seconds(r.restartLarge)),
        ]
        return "RESULT " + fields.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    }

    /// The service's own count by part (`/api/memory`), bytes a device over `devices`, and what
    /// the resident size grew by beyond their sum (the allocator's free space, SQLite's cache).
    private func partRows(_ parts: MemoryParts, since baseline: MemoryParts?, devices: Int, resident: Int) -> [Row] {
        var rows: [Row] = []
        var counted = 0.0
        for (name, bytes) in parts.perDevice(since: baseline, devices: devices) {
            counted += bytes
            rows.append(Row(what: "    \(name)", figure: String(format: "%.0f B a device", bytes)))
        }
        if let free = parts.heapFree, let before = baseline?.heapFree {
            rows.append(Row(what: "    heap free (allocator)", figure: String(format: "%.0f B a device", Double(free - before) / Double(max(devices, 1)))))
        }
        rows.append(Row(what: "    counted / resident", figure: String(format: "%.0f / %.0f B a device", counted, Double(resident) / Double(max(devices, 1)))))
        return rows
    }

    /// CPU time per message: "12.23 µs per message (3.67 s of CPU; `note`)".
    private func cpuRow(_ what: String, _ seconds: Double?, per count: Int, _ unit: String, _ note: String) -> Row? {
        guard let seconds else { return nil }
        let figure = String(format: "%.2f µs per %@ (%.2f s of CPU", Self.microseconds(seconds, per: count), unit, seconds)
        return Row(what: what, figure: figure + (note.isEmpty ? ")" : "; \(note))"))
    }

    /// The service's CPU a position over the counting subscriber's a message at the same QoS (in
    /// this run's ceiling phase): what the service costs beyond a bare libmosquitto client on the
    /// same stream (docs/performance.md "Performance": at most 1.2 times). The whole service
    /// against the subscriber's network thread, its only busy one.
    private func cpuRatioRow(_ qos: Int, _ service: BenchResults.Throughput, _ ceiling: BenchResults.Ceiling?) -> Row? {
        guard let serviceSeconds = service.cpuSeconds, let ceiling, let subscriberSeconds = ceiling.subscriberCPUSeconds,
            subscriberSeconds > 0
        else { return nil }
        let ratio = Self.microseconds(serviceSeconds, per: service.processed) / Self.microseconds(subscriberSeconds, per: ceiling.received)
        return Row(
            what: "  CPU over the subscriber's QoS \(qos)", figure: String(format: "%.2f times", ratio), target: "<= 1.2",
            verdict: verdict(ratio <= 1.2))
    }

    private static func microseconds(_ seconds: Double, per count: Int) -> Double {
        seconds * 1e6 / Double(max(count, 1))
    }

    private func startupRow(_ what: String, _ startup: BenchResults.Startup, target: Double?) -> Row {
        let online = startup.onlineSeconds.map { String(format: "online after %.2f s", $0) } ?? "never online"
        let ready = startup.readySeconds.map { String(format: "fences in effect after %.2f s", $0) }
            ?? String(format: "fences NOT loaded within %.0f s (%d added)", startup.timeLimit, startup.fencesAddedAtEnd)
        let met: Bool? = target.map { limit in (startup.readySeconds ?? .infinity) < limit }
        return Row(what: what, figure: "\(online); \(ready)", target: target.map { String(format: "< %.0f s", $0) } ?? "",
                   verdict: target == nil ? "" : verdict(met))
    }

    private func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_048_576)
    }

    private func verdict(_ met: Bool?) -> String {
        guard let met else { return "n/a" }
        return met ? "ok" : "MISSED"
    }
}
