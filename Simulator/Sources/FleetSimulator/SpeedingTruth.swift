/// Ground truth for `speeding` at one fence with `speed_limit_kmh` (docs/rules.md "The rules"): a device
/// inside whose every sample for at least `debounce_s` reports `spd` above the limit gets one
/// alert per episode, `at` the episode's first sample over the limit; the episode ends after
/// `debounce_s` at or under the limit, or when the device is no longer inside.
///
/// Speeds are the noise-free ones the trucks publish; what is uncertain is whether the service
/// holds the device inside (near a crossing, under noise) and sample times that fall within the
/// timing margin of the debounce. Both are settled the judge's usual way: the episodes are worked
/// out under every combination of those extremes, and an alert every combination gives is
/// expected, one only some give ambiguous.
struct SpeedingTruth {
    var device: String
    var fence: String
    var limitKmh: Double
    var times: [Double]
    /// m/s as published; `nil`: the sample carries none and says nothing.
    var speeds: [Double?]
    var surelyInside: [Bool]
    var possiblyInside: [Bool]
    var debounce: Double
    var slack: Double

    /// A speed within this of the limit may be read either way (km/h from m/s is not exact).
    static let closeToLimit = 0.01

    private enum Reading { case over, under, unclear }

    private struct Variant {
        var surely: Bool
        var confirm: Double
        var calm: Double
        var unclearIsOver: Bool
    }

    /// One episode's alert under one variant, and the sample it starts at.
    private struct Found {
        var key: Key
        var start: Int
    }

    /// The run of samples not under the limit that an episode starts in, and which of that run's
    /// episodes it is.
    private struct Key: Hashable, Comparable {
        var run: Int
        var ordinal: Int
        static func < (a: Key, b: Key) -> Bool { (a.run, a.ordinal) < (b.run, b.ordinal) }
    }

    func alerts() -> [ExpectedAlert] {
        let readings: [Reading?] = speeds.map { speed in
            guard let speed else { return nil }
            let kmh = speed * 3.6
            if abs(kmh - limitKmh) <= Self.closeToLimit { return .unclear }
            return kmh > limitKmh ? .over : .under
        }
        // Runs of samples not under the limit (samples without a speed neither break nor join them).
        var runOf = [Int](repeating: -1, count: times.count)
        var run = -1, inRun = false
        for j in times.indices {
            guard let reading = readings[j] else {
                if inRun { runOf[j] = run }
                continue
            }
            if reading == .under {
                inRun = false
            } else {
                if !inRun { run += 1 }
                inRun = true
                runOf[j] = run
            }
        }

        var variants: [Variant] = []
        for surely in [true, false] {
            for confirm in [debounce - slack, debounce + slack] {
                for calm in [debounce - slack, debounce + slack] {
                    for unclearIsOver in [false, true] {
                        variants.append(Variant(surely: surely, confirm: confirm, calm: calm, unclearIsOver: unclearIsOver))
                    }
                }
            }
        }
        var found: [Key: [Found]] = [:]
        for variant in variants {
            for alert in episodes(variant, readings: readings, runOf: runOf) { found[alert.key, default: []].append(alert) }
        }

        return found.keys.sorted().map { key in
            let group = found[key]!
            let starts = group.map { times[$0.start] }
            let at = starts.min()!
            // When the episode truly became alertable: the first sample a debounce after it began.
            let due = times.indices.first { runOf[$0] == key.run && times[$0] >= at + debounce }.map { times[$0] }
                ?? at + debounce
            let certain = group.count == variants.count
            return ExpectedAlert(
                device: device, fence: fence, event: .speeding, at: at, due: due, certainty: certain ? .expected : .ambiguous,
                note: certain ? nil : "speeding near the debounce, the limit or a crossing", atWindow: at...starts.max()!)
        }
    }

    /// The episodes one variant alerts.
    private func episodes(_ variant: Variant, readings: [Reading?], runOf: [Int]) -> [Found] {
        enum Phase {
            case idle
            case pending(start: Int)
            case speeding
            case calming(since: Double)
        }
        var phase = Phase.idle
        var out: [Found] = []
        var ordinals: [Int: Int] = [:]
        for j in times.indices {
            // Not inside ends the episode, whether the sample has a speed or not.
            guard variant.surely ? surelyInside[j] : possiblyInside[j] else {
                phase = .idle
                continue
            }
            guard let reading = readings[j] else { continue }
            let over = reading == .over || (reading == .unclear && variant.unclearIsOver)
            switch phase {
            case .idle:
                if over { phase = .pending(start: j) }
            case .pending:
                if !over { phase = .idle }
            case .speeding:
                if !over { phase = .calming(since: times[j]) }
            case let .calming(since):
                if over {
                    phase = .speeding
                } else if times[j] >= since + variant.calm {
                    phase = .idle
                }
            }
            if case let .pending(start) = phase, times[j] >= times[start] + variant.confirm {
                let run = runOf[start]
                let ordinal = ordinals[run, default: 0]
                ordinals[run] = ordinal + 1
                out.append(Found(key: Key(run: run, ordinal: ordinal), start: start))
                phase = .speeding
            }
        }
        return out
    }
}
