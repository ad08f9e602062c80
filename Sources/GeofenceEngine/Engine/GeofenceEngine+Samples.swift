import CPrefetch
/// docs/rules.md "The rules": evidence, debounce, first sight and order, one sample at a time.
extension GeofenceEngine {
    /// Feeds one sample of `device`. `arrival` is the caller's wall clock, used only to judge
    /// silence later. Transitions are appended to `transitions`.
    @discardableResult
    public mutating func process(
        device: String, sample: PositionSample, arrival: Double, into transitions: inout [Transition]
    ) -> SampleOutcome {
        let handle = registerDevice(device)
        return process(handle, sample: sample, arrival: arrival, into: &transitions)
    }

    @discardableResult
    public mutating func process(
        _ handle: DeviceHandle, sample: PositionSample, arrival: Double, into transitions: inout [Transition]
    ) -> SampleOutcome {
        let deviceSlot = handle.slot
        let device = Int(deviceSlot)
        // Callers validate; a sample that slipped through must not poison the device's state.
        guard Coordinate(lat: sample.lat, lon: sample.lon).isValid, sample.timestamp.isFinite,
            sample.accuracy.map({ $0.isFinite && $0 >= 0 }) ?? true
        else {
            counters.invalid += 1
            return SampleOutcome(status: .invalid)
        }
        // Rule 4, as docs/rules.md "Late samples" widens it: event time decides; an older sample is
        // merged in its place when the device still holds what it needs, else dropped.
        guard sample.timestamp > devices.lastTimestamp[device] else {
            return processLate(handle, sample: sample, arrival: arrival, into: &transitions)
        }
        // A newer sample ends a backlog arriving that has filled its gap: merged first, as an upload
        // oldest first gives. Before that, an accurate one joins it. The history column first: a
        // device in a steady stream holds none, and costs no hashing.
        var merged: SampleOutcome?
        if devices.history[device] >= 0, devicesWithOpenBacklog.contains(deviceSlot) {
            if newerFixEndsBacklog(of: device, arrival: arrival) {
                merged = mergeBacklog(of: deviceSlot, arrival: arrival, into: &transitions)
            } else if sample.accuracy.map({ $0 <= settings.maxAccuracyMeters }) ?? true {
                return joinBacklog(deviceSlot, sample: sample, arrival: arrival)
            }
        }
        let previousLatest = devices.lastTimestamp[device]
        devices.lastTimestamp[device] = sample.timestamp
        devices.lastHeard[device] = arrival
        counters.accepted += 1
        // What the backlog's merge changed, for this sample's outcome.
        var outcome = merged ?? SampleOutcome(status: .accepted)
        outcome.status = .accepted

        // Rule 1: a sample less accurate than the limit says nothing, to any fence. It is ignored
        // by the rules altogether, so it does not count as news for silent confirmation either.
        guard var current = takeRecord(ifAccurate: sample, of: deviceSlot, arrival: arrival) else { return outcome }
        // The regions before this sample, kept only when it is held: keeping them makes the next
        // change of the entries copy them.
        let anchor = devices.anchorTime[device].isNaN
            ? nil : (devices.anchorTime[device], devices.anchorLat[device], devices.anchorLon[device])
        // A gap is measured from the last sample judged (the anchor): measured from an inaccurate
        // one (a receiver that has just found the sky again after a tunnel), the accurate fix
        // after it ended no gap, and the outage's backlog was `too_late`.
        let previousJudged = anchor?.0 ?? previousLatest
        let holding = willHold(sample, previousJudged: previousJudged, device: device)
        let before = holding ? current.entries : []
        // Read only when held: a first sample held keeps its accuracy there (`holdFirstSample`).
        let anchorAccuracy = holding ? devices.anchorAccuracy[device] : .nan
        let firstNewTransition = transitions.endIndex
        let wasPendingWithEvidence = current.hasEvidencePending
        outcome.firstSight = devices.knownGeneration[device] == 0
        let knownGeneration = devices.knownGeneration[device]
        evaluate(&current, sample: sample, arrival: arrival, anchor: anchor, &outcome, &transitions)
        devices.knownGeneration[device] = generation
        devices.anchorTime[device] = sample.timestamp
        devices.anchorLat[device] = sample.lat
        devices.anchorLon[device] = sample.lon
        devices.anchorAccuracy[device] = sample.accuracy.map { Float($0) } ?? .nan
        if current.hasEvidencePending != wasPendingWithEvidence { outcome.recordChanged = true }
        if knownGeneration != generation { outcome.recordChanged = true }
        if finishStep(&current, device: deviceSlot, from: firstNewTransition, &transitions) { outcome.recordChanged = true }
        putBack(current, for: deviceSlot)
        if holding {
            hold(
                sample, before: before, anchor: anchor, anchorAccuracy: anchorAccuracy,
                alerted: transitions[firstNewTransition...],
                previousJudged: outcome.firstSight ? -.infinity : previousJudged, device: device)
        } else if outcome.firstSight, settings.lateWindowSeconds > 0, transitions.endIndex == firstNewTransition {
            holdFirstSample(sample, device: device)
        } else if devices.history[device] == DeviceTable.firstSampleHeld
            || devices.history[device] == DeviceTable.confirmedSinceAnchor
        {
            // No backlog came behind the first sample, and the device reports steadily: it holds
            // nothing. Or a new anchor: what silence confirmed is older than it.
            devices.history[device] = -1
        }
        return outcome
    }

    /// One accurate sample judged against every fence that concerns the device at its place: those
    /// it has a state at, and those near it.
    mutating func evaluate(
        _ current: inout DeviceRegions, sample: PositionSample, arrival: Double, anchor: (Double, Double, Double)?,
        _ outcome: inout SampleOutcome, _ transitions: inout [Transition]
    ) {
        let deviceSlot = current.device
        let device = Int(deviceSlot)
        let targeted = audiences.hasTargetedGroups
        let context = SampleContext(
            device: deviceSlot, sample: sample, point: ProbePoint(lat: sample.lat, lon: sample.lon),
            margin: max(settings.hysteresisMeters, sample.accuracy ?? 0), arrival: arrival, anchor: anchor)

        // The probes of the fences the device has a state at are asked for first (a prefetch), and
        // the fences near the sample, which do not depend on that state, found while they come
        // from memory: with 100,000 fences each probe was a cache miss the judging waited for
        // (perf: a quarter of this function's time). engine-bench at 100,000 fences: +4.5% (eight
        // alternating runs); reading them instead of prefetching gained 1%.
        fenceProbes.withUnsafeBufferPointer { probes in
            for entry in current.entries { cprefetch(probes.baseAddress! + Int(entry.fenceSlot)) }
        }
        candidateScratch.removeAll(keepingCapacity: true)
        candidateCaches.candidates(
            device: device, point: context.point, margin: context.margin, index: index, probes: fenceProbes,
            everyGroup: !targeted, groups: targeted ? devices.groups(of: device) : [],
            keep: anchor.map { sample.timestamp - $0.0 <= CandidateCaches.keepWithinSeconds } ?? false,
            into: &candidateScratch)
        // An expired fence says nothing more; the next tick removes it (docs/rules.md "The rules").
        // Expired by the wall clock, or by the sample's own time: one that arrives before its
        // `ts` (a clock ahead, within `max_future_s`) confirmed enters after the expiry.
        let expiredBy = max(arrival, sample.timestamp)
        // Fences the device already has a state at: judged wherever the sample is.
        var position = 0
        while position < current.entries.count {
            let probe = fenceProbes[Int(current.entries[position].fenceSlot)]
            if probe.expiresAt <= expiredBy {
                position += 1
                continue
            }
            let (distance, cap) = probe.geometry.measure(context.point, cap: probe.marginCap)
            // Judged in place: a copy taken out shares the entry's box, which then cannot be
            // changed in place (`RegionEntry`).
            judge(&current.entries[position], probe: probe, distance: distance, cap: cap, context, &outcome, &transitions)
            if current.entries[position].isDefault {
                current.entries.remove(at: position)
            } else {
                position += 1
            }
        }
        // Near fences without an entry: where a device with no entry can start a change.
        let knownGeneration = devices.knownGeneration[device]
        for fenceSlot in candidateScratch where !current.entries.contains(where: { $0.fenceSlot == fenceSlot }) {
            let probe = fenceProbes[Int(fenceSlot)]
            // Outside evidence for a fence without an entry leaves it (or makes it) known
            // outside, the default: the common case, decided without the full fence.
            let (distance, cap) = probe.geometry.measure(context.point, cap: probe.marginCap)
            if distance <= -min(context.margin, cap) || probe.expiresAt <= expiredBy { continue }
            let known = fenceGenerations[Int(fenceSlot)] <= knownGeneration
            var entry = RegionEntry(fenceSlot: fenceSlot, state: known ? .outside : .unknown)
            judge(&entry, probe: probe, distance: distance, cap: cap, context, &outcome, &transitions)
            if !entry.isDefault { current.entries.append(entry) }
        }
        // Fences far from the sample and new to the device got outside evidence: known outside,
        // which is the default, so nothing is stored for them.
    }

    struct SampleContext {
        let device: Int32
        let sample: PositionSample
        let point: ProbePoint
        /// max(hysteresis, accuracy), before each fence's cap.
        let margin: Double
        /// The caller's wall clock at the sample's arrival.
        let arrival: Double
        /// The previous accurate sample (time, lat, lon).
        let anchor: (Double, Double, Double)?
    }

    /// Applies one sample to one device-fence pair: its region, then its speed.
    private mutating func judge(
        _ entry: inout RegionEntry, probe: FenceProbe, distance: Double, cap: Double, _ context: SampleContext,
        _ outcome: inout SampleOutcome, _ transitions: inout [Transition]
    ) {
        judgeRegion(&entry, probe: probe, distance: distance, cap: cap, context, &outcome, &transitions)
        if entry.speeding != nil || !probe.speedLimitKmh.isNaN {
            judgeSpeed(&entry, limit: probe.speedLimitKmh.isNaN ? nil : probe.speedLimitKmh, context, &outcome, &transitions)
        }
    }

    /// The fence held in `slot`, for what is alerted (the hot path reads the probe).
    func fence(in slot: Int32) -> Fence {
        fenceSlots[Int(slot)]!
    }

    private mutating func judgeRegion(
        _ entry: inout RegionEntry, probe: FenceProbe, distance: Double, cap: Double, _ context: SampleContext,
        _ outcome: inout SampleOutcome, _ transitions: inout [Transition]
    ) {
        let sample = context.sample
        let margin = min(context.margin, cap)
        let insideEvidence = distance >= margin
        let outsideEvidence = distance <= -margin
        let onInsideSide = distance > 0

        switch entry.state {
        case .unknown:
            // Rule 3: the first evidence sets the state at once and silently.
            if insideEvidence {
                entry.state = .inside
                entry.enteredAt = sample.timestamp
                entry.dwellReported = false
                outcome.insideChanged = true
                outcome.recordChanged = true
            } else if outsideEvidence {
                entry.state = .outside
                outcome.recordChanged = true
            }
        case .outside, .inside:
            let inside = entry.state == .inside
            if onInsideSide == inside {
                // Back on the old side, even within the band: any pending change is off.
                if entry.pending != nil {
                    entry.pending = nil
                    outcome.recordChanged = true
                }
                if inside { reportDwellIfDue(&entry, dwell: probe.dwellSeconds, context, &transitions, &outcome) }
                return
            }
            var pending = entry.pending ?? PendingChange(
                crossedAt: crossingTime(probe.geometry, context, distance: distance),
                evidenceSince: nil, lat: sample.lat, lon: sample.lon)
            if entry.pending == nil { outcome.recordChanged = true }
            pending.lat = sample.lat
            pending.lon = sample.lon
            let evidence = inside ? outsideEvidence : insideEvidence
            if evidence {
                if pending.evidenceSince == nil {
                    pending.evidenceSince = sample.timestamp
                    outcome.recordChanged = true
                }
                entry.pending = pending
                // Rule 2: confirmed by new-side evidence at least debounce_s after the first.
                if sample.timestamp >= pending.evidenceSince! + settings.debounceSeconds {
                    confirm(&entry, fence: fence(in: entry.fenceSlot), device: context.device, confirmedAt: sample.timestamp,
                            lat: sample.lat, lon: sample.lon, &transitions)
                    outcome.insideChanged = true
                    outcome.recordChanged = true
                    if entry.state == .inside {
                        reportDwellIfDue(&entry, dwell: probe.dwellSeconds, context, &transitions, &outcome)
                    }
                }
            } else {
                entry.pending = pending
            }
        }
    }

    /// Alerts of one device from one step come out in fence id order (enter before dwell), ids
    /// compared as bytes, with
    /// seq following that order: the same input gives the same numbering whatever the index's
    /// internal order, also after a restore.
    func orderBySequence(_ transitions: inout [Transition], from start: Int) {
        guard transitions.count - start > 1 else { return }
        let firstSeq = transitions[start...].map(\.seq).min()!
        transitions[start...].sort { a, b in
            let (x, y) = (ExactID(a.fenceID), ExactID(b.fenceID))
            return x != y ? x < y : a.event < b.event
        }
        for (offset, position) in transitions.indices[start...].enumerated() {
            transitions[position].seq = firstSeq + UInt64(offset)
        }
    }

    /// Interpolates where the straight line from the previous accurate sample met the boundary.
    private func crossingTime(_ geometry: Fence.Geometry, _ context: SampleContext, distance: Double) -> Double {
        let now = context.sample.timestamp
        guard let (time, lat, lon) = context.anchor, time < now else { return now }
        let previous = geometry.signedDistance(to: ProbePoint(lat: lat, lon: lon))
        // Only a previous sample on the other side of the boundary brackets the crossing.
        guard (previous > 0) != (distance > 0) else { return now }
        let span = abs(previous) + abs(distance)
        guard span > 0 else { return now }
        return time + (now - time) * abs(previous) / span
    }

    /// Turns a pending change into the new state and its alert.
    mutating func confirm(
        _ entry: inout RegionEntry, fence: Fence, device: Int32, confirmedAt: Double, lat: Double, lon: Double,
        _ transitions: inout [Transition]
    ) {
        guard let pending = entry.pending else { return }
        entry.pending = nil
        if entry.state == .outside {
            entry.state = .inside
            entry.enteredAt = pending.crossedAt
            entry.dwellReported = false
            // Tours are told of every confirmed enter, alerted or not (docs/rules.md "Tours").
            enteredScratch.append(ConfirmedEnter(
                fenceSlot: entry.fenceSlot, at: pending.crossedAt, confirmedAt: confirmedAt, lat: lat, lon: lon))
            if fence.notify.contains(.enter) {
                transitions.append(makeTransition(
                    .enter, device: device, fence: fence, at: pending.crossedAt, confirmedAt: confirmedAt,
                    lat: lat, lon: lon))
            }
        } else {
            entry.state = .outside
            // Leaving ends a speeding episode.
            entry.speeding = nil
            if fence.notify.contains(.exit) {
                transitions.append(makeTransition(
                    .exit, device: device, fence: fence, at: pending.crossedAt, confirmedAt: confirmedAt,
                    lat: lat, lon: lon, durationSeconds: max(0, pending.crossedAt - entry.enteredAt)))
            }
        }
    }

    /// `dwell` once per stay, judged on inside samples.
    /// `dwell`: the fence's `dwell_s` when it notifies dwell, else NaN.
    private mutating func reportDwellIfDue(
        _ entry: inout RegionEntry, dwell: Double, _ context: SampleContext, _ transitions: inout [Transition],
        _ outcome: inout SampleOutcome
    ) {
        guard !entry.dwellReported, !dwell.isNaN else { return }
        let inside = context.sample.timestamp - entry.enteredAt
        guard inside >= dwell else { return }
        entry.dwellReported = true
        outcome.recordChanged = true
        transitions.append(makeTransition(
            .dwell, device: context.device, fence: fence(in: entry.fenceSlot), at: entry.enteredAt,
            confirmedAt: context.sample.timestamp, lat: context.sample.lat, lon: context.sample.lon,
            dwellSeconds: inside))
    }
}
