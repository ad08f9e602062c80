import SeededRandom

/// Phase 4: resident memory per device known. New devices publish one position each (in chunks,
/// QoS 0, as fast as the broker takes them) until the service knows `steps` more devices; at each
/// step, once the service counted them all and its memory settled, VmRSS is read.
extension BenchRun {
    func measureScale(_ service: BenchService, steps: [Int], area: FleetArea) async throws -> BenchResults.Scale {
        guard let publisher else { throw BenchError.failed("no publisher") }
        let before = try waitForIdle(service)
        var scale = BenchResults.Scale()
        scale.baselineRSSBytes = settledRSS(service)
        scale.baselineDevices = service.log.snapshot.devices
        scale.baselineParts = MemoryParts.read(port: service.httpPort)
        var random = SeededRandom(seed: settings.seed &+ 7)
        /// One position each, at a random point, for devices `numbers`, in bursts of 100,000.
        func publishOnce(_ numbers: Range<Int>, ts: (Int) -> Double) {
            for from in stride(from: numbers.lowerBound, to: numbers.upperBound, by: 100_000) {
                let count = min(100_000, numbers.upperBound - from)
                var stream = PositionStream(reservingMessages: count)
                for number in from..<(from + count) {
                    let point = area.randomPoint(using: &random)
                    let topic = stream.addTopic("fleet/scale-\(number)/position")
                    stream.append(topic: topic, PositionFix(lat: point.lat, lon: point.lon, ts: ts(number), acc: 8))
                }
                let outcome = publisher.burst(stream, qos: 0)
                if outcome.dropped > 0 { results.notes.append("scale: publisher dropped \(outcome.dropped) messages") }
            }
        }
        var published = 0
        for target in steps.sorted() where target > published {
            let stepStart = Monotonic.nanos()
            let stepFrom = published
            publishOnce(published..<target) { _ in Fleet.startTime }
            published = target
            let counted = try waitForPositions(service, atLeast: before + target, stall: 30)
            guard counted.count >= before + target else {
                throw BenchError.timedOut("scale: service counted \(counted.count - before) of \(target) new devices")
            }
            var point = BenchResults.ScalePoint()
            point.devices = target
            point.added = target - stepFrom
            point.seconds = Monotonic.seconds(from: stepStart, to: counted.nanos)
            point.rssBytes = settledRSS(service)
            point.parts = MemoryParts.read(port: service.httpPort)
            scale.points.append(point)
            progress(String(format: "scale: +%d devices, RSS %.1f MB", target, Double(point.rssBytes) / 1_048_576)
                + (point.parts.map { String(format: ", counted by part in %.0f ms", $0.seconds * 1000) } ?? ""))
        }
        // The cost of what devices hold for a backlog: every device reports again after a gap, the
        // case in which each holds one sample (a steady stream holds none).
        if published > 0, let lastRSS = scale.points.last?.rssBytes {
            publishOnce(0..<published) { _ in Fleet.startTime + 60 }
            let counted = try waitForPositions(service, atLeast: before + 2 * published, stall: 30)
            if counted.count >= before + 2 * published {
                scale.heldRSSBytes = settledRSS(service)
                scale.heldParts = MemoryParts.read(port: service.httpPort)
                scale.heldDevices = published
                progress(String(format: "scale: every device holding a sample, RSS %.1f MB (%+.0f B a device)",
                                Double(scale.heldRSSBytes!) / 1_048_576, Double(scale.heldRSSBytes! - lastRSS) / Double(published)))
            } else {
                results.notes.append("scale: service counted \(counted.count - before) of \(2 * published) positions; nothing held measured")
            }
        }
        // Trackers as they report, each report up to 20% early or late (`--scale-jittered-reports`).
        if let heldRSS = scale.heldRSSBytes, settings.scaleJitteredReports > 0 {
            var last = [Double](repeating: Fleet.startTime + 60, count: published)
            var jitter = SeededRandom(seed: settings.seed &+ 8)
            for round in 1...settings.scaleJitteredReports {
                publishOnce(0..<published) { number in
                    last[number] += 60 * (0.8 + 0.4 * jitter.nextUnit())
                    return last[number]
                }
                let counted = try waitForPositions(service, atLeast: before + (2 + round) * published, stall: 30)
                guard counted.count >= before + (2 + round) * published else {
                    results.notes.append("scale: service counted \(counted.count - before) positions after jittered report \(round); not measured")
                    return scale
                }
            }
            scale.jitteredRSSBytes = settledRSS(service)
            scale.jitteredParts = MemoryParts.read(port: service.httpPort)
            scale.jitteredReports = settings.scaleJitteredReports
            progress(String(format: "scale: %d reports more, a minute ±20%% apart, RSS %.1f MB (%+.0f B a device)",
                            settings.scaleJitteredReports, Double(scale.jitteredRSSBytes!) / 1_048_576,
                            Double(scale.jitteredRSSBytes! - heldRSS) / Double(published)))
        }
        return scale
    }

    /// VmRSS once it stops moving (two readings 0.5 s apart within 1%), or after 10 s.
    func settledRSS(_ service: BenchService) -> Int {
        let start = Monotonic.nanos()
        var previous = service.residentBytes ?? 0
        while Monotonic.since(start) < 10 {
            Monotonic.sleep(seconds: 0.5)
            let now = service.residentBytes ?? 0
            if abs(now - previous) <= previous / 100 { return now }
            previous = now
        }
        return previous
    }
}
