/// docs/rules.md "The rules", `speed_limit_kmh`: a device inside a fence with a limit, whose every sample
/// for at least `debounce_s` reports a speed over it, gets one `speeding` alert per episode.
/// Samples without a speed say nothing; the episode ends after `debounce_s` of samples at or under
/// the limit, or when the device leaves.
extension GeofenceEngine {
    /// `limit`: the fence's `speed_limit_kmh`.
    mutating func judgeSpeed(
        _ entry: inout RegionEntry, limit: Double?, _ context: SampleContext, _ outcome: inout SampleOutcome,
        _ transitions: inout [Transition]
    ) {
        guard entry.state == .inside, let limit else {
            // Outside, or the limit was taken away by a replace: no episode.
            if entry.speeding != nil {
                entry.speeding = nil
                outcome.recordChanged = true
            }
            return
        }
        let sample = context.sample
        guard let speed = sample.speed, speed >= 0 else { return }
        let t = sample.timestamp
        let debounce = settings.debounceSeconds
        // Compared in the samples' m/s: a device reporting exactly the limit is at it, not over.
        let over = speed > limit / 3.6
        guard var episode = entry.speeding else {
            guard over else { return }
            var run = SpeedingEpisode(since: t, maxSpeed: speed, alerted: false, calmSince: nil)
            confirmSpeedingIfDue(&run, limit: limit, fence: entry.fenceSlot, context, &transitions)
            entry.speeding = run
            outcome.recordChanged = true
            return
        }
        if !episode.alerted {
            // A run over the limit: one sample at or under it cancels it.
            guard over else {
                entry.speeding = nil
                outcome.recordChanged = true
                return
            }
            episode.maxSpeed = max(episode.maxSpeed, speed)
            confirmSpeedingIfDue(&episode, limit: limit, fence: entry.fenceSlot, context, &transitions)
        } else if over {
            episode.calmSince = nil
        } else {
            let calm = episode.calmSince ?? t
            if t - calm >= debounce {
                entry.speeding = nil
                outcome.recordChanged = true
                return
            }
            episode.calmSince = calm
        }
        if episode != entry.speeding {
            entry.speeding = episode
            outcome.recordChanged = true
        }
    }

    /// Alerts the run once it has lasted `debounce_s`: `at` its first sample over the limit,
    /// confirmed by this one.
    private mutating func confirmSpeedingIfDue(
        _ episode: inout SpeedingEpisode, limit: Double, fence slot: Int32, _ context: SampleContext,
        _ transitions: inout [Transition]
    ) {
        let sample = context.sample
        guard !episode.alerted, sample.timestamp - episode.since >= settings.debounceSeconds else { return }
        episode.alerted = true
        var alert = makeTransition(
            .speeding, device: context.device, fence: fence(in: slot), at: episode.since, confirmedAt: sample.timestamp,
            lat: sample.lat, lon: sample.lon)
        alert.maxSpeedKmh = episode.maxSpeed * 3.6
        alert.limitKmh = limit
        transitions.append(alert)
    }
}
