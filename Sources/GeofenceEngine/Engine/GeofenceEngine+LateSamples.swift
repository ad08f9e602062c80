/// docs/rules.md "Late samples": a tracker back in coverage often sends its live fix first and its
/// backlog after it. A sample older than the device's latest, within `late_window_s`, is held in
/// its place; once the backlog has ended it is merged: for every fence whose last confirmed change
/// it follows, what came after it is judged again with it in its place, from the regions the device
/// held just before it.
extension GeofenceEngine {
    /// Whether an accepted, accurate sample will be held: the device holds a history already, or
    /// the sample ends a gap in its reports, after which a backlog may follow. A steady stream
    /// holds nothing: holding every sample cost the engine 2.5 times its time per sample
    /// (engine-bench, 1,000 fences: 3.4 M against 8.4 M positions/s).
    /// A device's first sample is held at no cost instead (`holdFirstSample`).
    func willHold(_ sample: PositionSample, previousJudged: Double, device: Int) -> Bool {
        settings.lateWindowSeconds > 0
            && (devices.history[device] >= 0
                || (previousJudged.isFinite && sample.timestamp - previousJudged > Self.gapSeconds))
    }

    /// Reports further apart than this may hide a coverage gap whose backlog follows.
    static let gapSeconds = 5.0

    /// What a device holds while a backlog arrives: all of it, or a visit of more fixes than
    /// `heldSamples` loses its middle (held to four, a visit of five fixes or more was never
    /// alerted). A fix a second for the whole late window (3,600 for the default hour), at least
    /// 1,024 and at most a day's: a backlog the window takes at a fix a second is merged whole, as
    /// the window promises. Held to 1,024, a newest-first backlog of 18 minutes at a fix a second
    /// lost its oldest fixes as `too_late`, and the visits in them. A longer backlog is merged in
    /// parts of that many (its merge judges each fix once). 56 bytes a fix, until merged; then
    /// back to `heldSamples`.
    ///
    /// Counted with the live fixes held before the backlog came: counted against the backlog
    /// alone, an hour behind two live fixes was merged early, its first fix in a part of its own.
    var backlogSamples: Int {
        Int(min(max(settings.lateWindowSeconds.rounded(.up) + 1, 1_024), 86_400)) + heldAfterAnOutage
    }

    /// What a device reporting less often than every `gapSeconds` holds after an outage
    /// (`outageRatio`), for a backlog that comes behind later live fixes: 80 s of reports every
    /// 10 s, four minutes of reports every 30 s, 56 bytes a report, until it has reported this
    /// many times since.
    static let samplesAfterAGap = 8

    /// A gap is taken for an outage whose backlog may come behind later reports only when it is
    /// more than this times the gap before it: an outage hides a report at least (twice the
    /// interval), and gaps within ±20% of their interval are at most 1.5 times one another. Kept
    /// across any shorter gap, a tracker whose reports jitter held five of them for nothing.
    /// Decided once, at the gap, and marked on the sample that ended it: decided at each report
    /// after it, against that report's gap, a single missed report among jittering ones was lost
    /// as jitter at any of them.
    static let outageRatio = 1.5

    var heldAfterAGap: Int { max(Self.samplesAfterAGap, settings.heldSamples) }

    /// What a device reporting every few seconds holds after an outage: a report a second for the
    /// debounce, beside what it held before (1.6 kB for the default 20 s). Faster reports lose the
    /// oldest first, the live fix among them, and a backlog behind them is `too_late`.
    var heldAfterAnOutage: Int { heldAfterAGap + Int(min(settings.debounceSeconds, 3_600).rounded(.up)) }

    /// How long after an outage's live fix those reports are kept: a minute, or `debounce_s` if
    /// longer (at most an hour: a debounce that long would hold 200 kB a device). Kept for the
    /// debounce alone, 20 s, a tracker reporting every 5 s whose backlog followed on its next send
    /// period (30 s later), or behind its sixth live fix, lost the whole backlog, and visits with it,
    /// as `too_late`. The count above still bounds it: the time lets slower reports reach it.
    var outageHold: Double { min(max(settings.debounceSeconds, 60), 3_600) }

    /// Keeps an accepted, accurate sample with the regions just before it and the fences it
    /// alerted, for the late samples that may follow it (only when `willHold` said so).
    /// `previousJudged`: the device's accurate sample before it (a fix too inaccurate to judge
    /// ends no gap and is never held); `anchor` and `anchorAccuracy`: that sample's place and
    /// accuracy, read before the anchor columns moved to this one.
    mutating func hold(
        _ sample: PositionSample, before: [RegionEntry], anchor: (Double, Double, Double)?, anchorAccuracy: Float,
        alerted: ArraySlice<Transition>, previousJudged: Double, device: Int
    ) {
        let gap = sample.timestamp - previousJudged > Self.gapSeconds
        // A first sample held starts the history: a backlog may still come behind it. The anchor
        // columns are this sample's already; `anchor` and `anchorAccuracy` are the first's.
        var fromFirst = false
        if devices.history[device] == DeviceTable.firstSampleHeld, let anchor {
            fromFirst = historyOfFirstSample(device, at: anchor, accuracy: anchorAccuracy) != nil
        }
        let index = devices.history[device]
        var history = index >= 0 ? histories.take(index) : SampleHistory()
        // A device reporting every few seconds keeps, after an outage, every report for
        // `outageHold`, or until its backlog has come: the backlog may come behind any of them and
        // must still give the alerts of an upload oldest first.
        // Held to four, a backlog behind a second-by-second tracker's fifth live fix was
        // `too_late`. Kept on after the backlog merged, engine-bench's late case lost 10-20%.
        let inOutageHold =
            index >= 0
            && history.outageAwaitingBacklog.map { sample.timestamp - $0 <= outageHold } ?? false
        let afterAnOutage = !gap && inOutageHold
        if index >= 0, history.epoch == fenceEpoch, !gap, !afterAnOutage, !history.merging,
            history.held.count >= settings.heldSamples
        {
            // No backlog came: the device reports steadily again and holds nothing.
            histories.remove(index)
            devices.history[device] = -1
            return
        }
        // After a gap taken for an outage, a shorter one (a tracker reporting every 10 s after its
        // live fix) keeps the history: the outage's backlog may still come, behind the second live
        // fix as behind the first. Started afresh at every gap, it held only the newest fix, and a
        // backlog sent after the next one was `too_late`.
        let mayStartAfresh = gap && !history.merging && !fromFirst
        let gapLength = sample.timestamp - previousJudged
        // Known from what was held: with nothing held before (a steady stream, a first fix) or
        // the report before not held, any gap may be an outage.
        let gapBefore = index >= 0 && !fromFirst ? history.gap(endedAt: previousJudged) : nil
        let endsOutage = gap && gapLength > Self.outageRatio * (gapBefore ?? 0)
        let keptAcrossGap = mayStartAfresh && history.holdsAnOutage && gapLength < history.longestGap
        if index < 0 || history.epoch != fenceEpoch || (mayStartAfresh && !keptAcrossGap) {
            // A gap as long as any held, or any gap when no held sample ended an outage (a device
            // reporting steadily every 10 s holds one fix), or snapshots from before a fence was
            // removed or reassigned (their slots may name other fences now): merging starts again
            // from here. Samples at or before its previous accurate one were judged into its
            // regions already.
            history = SampleHistory()
            history.epoch = fenceEpoch
            history.floor = previousJudged
        }
        // An open backlog was merged before this sample (`process`): what is held is judged.
        history.merging = false
        var held = SampleHistory.Held(sample, before: before, alerted: marks(alerted))
        held.endsOutage = endsOutage
        // Kept after an outage, the history stays unbroken, the oldest going first: a replay
        // interpolates each crossing from the sample before it, and one dropped from the middle
        // moved an enter's `at`. In the outage's debounce (a gap of over 5 s among those reports
        // too) up to `heldAfterAnOutage`; after it, `samplesAfterAGap` reports after the live fix.
        let capacity =
            inOutageHold && (afterAnOutage || keptAcrossGap)
            ? heldAfterAnOutage : keptAcrossGap ? heldAfterAGap : settings.heldSamples
        history.append(
            held, capacity: capacity, window: settings.lateWindowSeconds, anchor: anchor,
            oldestFirst: keptAcrossGap || afterAnOutage)
        if index >= 0 {
            histories.put(history, at: index)
        } else {
            devices.history[device] = histories.add(history)
        }
    }

    /// A device's first sample, when it alerted nothing (first sight is silent): a tracker's first
    /// message may be its live fix with a backlog behind it. Holding it as a history cost engine-bench
    /// 15-30% and every device seen once 155 bytes; it is already the device's anchor (place and
    /// time, and accuracy) and its regions before it were empty, so only its speed and the fence
    /// epoch are kept, and a history is made of it when a late sample comes, or a sample after a gap.
    mutating func holdFirstSample(_ sample: PositionSample, device: Int) {
        devices.history[device] = DeviceTable.firstSampleHeld
        devices.firstSpeed[device] = sample.speed ?? .nan
        devices.firstEpoch[device] = fenceEpoch
    }

    /// The device's history for a late sample: its place in `histories`, made of its first sample
    /// if that is what it holds; nil when it holds nothing.
    private mutating func heldHistory(of device: Int) -> Int32? {
        let index = devices.history[device]
        guard index == DeviceTable.firstSampleHeld else { return index >= 0 ? index : nil }
        return historyOfFirstSample(
            device, at: (devices.anchorTime[device], devices.anchorLat[device], devices.anchorLon[device]),
            accuracy: devices.anchorAccuracy[device])
    }

    /// Turns the device's first sample held, at `first` (time, lat, lon), into a history in
    /// `histories` and returns its place; nil (and the hold dropped) when a fence was removed or
    /// reassigned since, as for any history.
    private mutating func historyOfFirstSample(_ device: Int, at first: (Double, Double, Double), accuracy: Float) -> Int32? {
        guard devices.firstEpoch[device] == fenceEpoch else {
            devices.history[device] = -1
            return nil
        }
        var history = SampleHistory()
        history.epoch = fenceEpoch
        // Nothing judged before it: `floor` stays -infinity, and a merge judges the oldest held
        // sample as first sight.
        history.held = [SampleHistory.Held(
            timestamp: first.0, lat: first.1, lon: first.2, speed: devices.firstSpeed[device], before: [],
            accuracy: accuracy)]
        devices.history[device] = histories.add(history)
        return devices.history[device]
    }

    /// A history for a late sample newer than every fix judged: it came behind fixes too
    /// inaccurate to judge (a phone's position from the network, then its backlog of GPS fixes),
    /// so it is merged as an upload in order judges it. It starts at the device's anchor, its last
    /// fix judged; with no anchor (the device never had an accurate fix) it starts empty, and the
    /// backlog's oldest fix is the device's first sight (silent). Nil when the sample is not newer
    /// than the anchor, when silence confirmed a change since (`DeviceTable.confirmedSinceAnchor`),
    /// or when a device without an anchor has regions all the same (a journal's record without
    /// the anchor's time): first sight would set them again silently.
    private mutating func historyOfAnchor(_ device: Int, before timestamp: Double) -> Int32? {
        guard devices.history[device] == -1 else { return nil }
        let anchorTime = devices.anchorTime[device]
        let regions = record(of: Int32(device))?.entries ?? []
        var history = SampleHistory()
        history.epoch = fenceEpoch
        if anchorTime.isNaN {
            guard regions.isEmpty else { return nil }
        } else {
            guard timestamp > anchorTime else { return nil }
            history.floor = anchorTime
            // Only a place to interpolate from: a late sample comes after it, and the replay starts
            // from the regions after it (the device's own).
            history.held = [SampleHistory.Held(
                timestamp: anchorTime, lat: devices.anchorLat[device], lon: devices.anchorLon[device], speed: .nan,
                before: regions, accuracy: .nan)]
        }
        devices.history[device] = histories.add(history)
        return devices.history[device]
    }

    /// The alerts of fences (not tours' events) as marks for the history.
    private func marks(_ transitions: some Sequence<Transition>) -> [SampleHistory.AlertMark] {
        transitions.compactMap { transition in
            guard transition.tourID == nil, let slot = slotsByFenceID[ExactID(transition.fenceID)] else { return nil }
            return SampleHistory.AlertMark(
                fence: slot, confirmedAt: transition.confirmedAt, dwellStay: transition.event == .dwell ? transition.at : nil)
        }
    }

    /// Marks a fence confirmed by silence after the device's newest held sample.
    mutating func markAlerted(fence slot: Int32, at confirmedAt: Double, device: Int32) {
        let index = devices.history[Int(device)]
        guard index >= 0 else {
            if index == -1 { devices.history[Int(device)] = DeviceTable.confirmedSinceAnchor }
            return
        }
        histories.markAlerted(index, SampleHistory.AlertMark(fence: slot, confirmedAt: confirmedAt))
    }

    /// A late sample is held in its place, not judged yet: its backlog is merged once it has ended
    /// (`mergeBacklog`), as one replay in event-time order. Judged one by one as they came, the
    /// fixes of a backlog uploaded newest first confirmed a change on evidence with a hole in it
    /// (the older fixes not come yet): an enter with the times of the last fixes of the visit, no
    /// dwell, sometimes nothing at all; an alert published is never withdrawn.
    mutating func processLate(
        _ handle: DeviceHandle, sample: PositionSample, arrival: Double, into transitions: inout [Transition]
    ) -> SampleOutcome {
        let deviceSlot = handle.slot
        let device = Int(deviceSlot)
        let latest = devices.lastTimestamp[device]
        let window = settings.lateWindowSeconds
        guard window > 0, sample.timestamp < latest else {
            counters.stale += 1
            return SampleOutcome(status: .stale)
        }
        guard sample.timestamp >= latest - window else {
            counters.tooLate += 1
            return SampleOutcome(status: .tooLate)
        }
        // Nothing held to merge with (a steady stream, a restart, a fence removed since), or older
        // than what is held.
        let accurate = sample.accuracy.map { $0 <= settings.maxAccuracyMeters } ?? true
        guard let index = heldHistory(of: device) ?? (accurate ? historyOfAnchor(device, before: sample.timestamp) : nil)
        else {
            counters.tooLate += 1
            return SampleOutcome(status: .tooLate)
        }
        var history = histories.take(index)
        defer { histories.put(history, at: index) }
        // Older than what is held, or among fixes judged and trimmed away: judged now, it would be
        // judged without them. (Empty only before the device's first sight, `historyOfAnchor`.)
        guard history.epoch == fenceEpoch, !history.held.isEmpty || history.startsAtFirstSight,
            sample.timestamp > history.floor, !history.amongTrimmed(sample.timestamp)
        else {
            counters.tooLate += 1
            return SampleOutcome(status: .tooLate)
        }
        // In time order: found by halving, as a backlog of thousands is held one fix at a time.
        var place = history.place(of: sample.timestamp)
        if place < history.held.count, history.held[place].timestamp == sample.timestamp {
            counters.stale += 1
            return SampleOutcome(status: .stale)
        }
        counters.late += 1
        devices.lastHeard[device] = arrival
        // Rule 1: an inaccurate late sample says nothing, as an inaccurate newest one.
        if let accuracy = sample.accuracy, accuracy > settings.maxAccuracyMeters {
            counters.inaccurate += 1
            return SampleOutcome(status: .late)
        }
        var outcome = SampleOutcome(status: .late)
        if history.isOpen, history.held.count >= backlogSamples {
            // Full: what is held is merged now, so that nothing unjudged is trimmed away.
            histories.put(history, at: index)
            outcome = mergeBacklog(of: deviceSlot, arrival: arrival, into: &transitions)
            history = histories.take(index)
            place = history.place(of: sample.timestamp)
        }
        history.merging = true
        history.noteLate(sample.timestamp, arrival: arrival)
        devicesWithOpenBacklog.insert(deviceSlot)
        // The regions before it are those before the sample after it until the replay: the samples
        // between them are late ones not judged yet.
        let base = place < history.held.count ? history.held[place].before : record(of: deviceSlot)?.entries ?? []
        var held = SampleHistory.Held(sample, before: base)
        held.awaitingMerge = true
        history.insert(held, at: place, capacity: backlogSamples, window: window)
        return outcome
    }

    /// Merges the device's backlog, if one is held: every held sample from its oldest on judged
    /// again in event-time order, from the regions the device held just before it, as an upload
    /// oldest first would have judged them. Called when a newer sample comes and the backlog has
    /// ended (`newerFixEndsBacklog`), by the tick once no late fix has come for `silent_confirm_s`
    /// (`uploadPause` once newer fixes joined it), and before fences change. Alerts of
    /// fences a sample after the backlog had alerted already are not given again (an alert is never
    /// withdrawn); the rest are numbered in event-time order after the device's last alert.
    @discardableResult
    mutating func mergeBacklog(of deviceSlot: Int32, arrival: Double, into transitions: inout [Transition]) -> SampleOutcome {
        let device = Int(deviceSlot)
        var outcome = SampleOutcome(status: .late)
        guard devicesWithOpenBacklog.remove(deviceSlot) != nil else { return outcome }
        let index = devices.history[device]
        guard index >= 0 else { return outcome }
        var history = histories.take(index)
        defer { histories.put(history, at: index) }
        let (since, lastArrival, joined) = history.endBacklog()
        // A fence removed or reassigned since: the snapshots name slots that may be other fences now.
        guard history.epoch == fenceEpoch, let place = history.held.firstIndex(where: { $0.timestamp >= since }) else {
            return outcome
        }
        if audiences.hasTargetedGroups { refreshGroups(of: deviceSlot) }
        var current = takeRecord(of: deviceSlot, arrival: lastArrival)
        // Silence after the backlog counts from its last fix's arrival, or a newer fix's that joined it.
        current.lastArrival = max(current.lastArrival, lastArrival, joined ? devices.lastHeard[device] : -.infinity)
        let original = current.entries
        // Fences a sample at or after the backlog's oldest already changed: it says nothing for them.
        // A dwell changed nothing: the backlog may still have left the fence and come back. The stay
        // it was alerted for is the replay's stay at its sample, if that began no later than the
        // dwell's `at` (the backlog may move its start earlier): that stay's dwell is not given again.
        let settled = history.fencesAlerted(after: since)
        var dwelt: Set<SampleHistory.Stay> = []
        let settledIDs = Set(settled.compactMap { fenceSlots[Int($0)].map { ExactID($0.id) } })
        let settledSlots = Set(settled)

        // The replay, a step per sample as in event-time order: its alerts, then the tours its
        // enters visit (progress from the device's own), each step in a step's order.
        var replay = DeviceRegions(device: deviceSlot, lastArrival: current.lastArrival)
        replay.entries = history.held[place].before
        replay.tours = current.tours
        var replayed: [Transition] = []
        let seqBefore = devices.seq[device]
        var alertedBySample: [[Transition]] = []
        var anchor = history.anchor(before: place)
        let anchorAtMerge = devices.anchorTime[device]
        var dropped = 0
        for position in place..<history.held.count {
            history.held[position].awaitingMerge = false
            history.held[position].before = Self.compose(
                replay.entries, keeping: history.held[position].before, for: settled)
            let first = replayed.endIndex
            let sample = history.held[position].sample
            enteredScratch.removeAll(keepingCapacity: true)
            // Nothing was judged before the first held sample: it is the device's first sight (rule 3, silent).
            let knownGeneration = devices.knownGeneration[device]
            if position == 0, history.startsAtFirstSight { devices.knownGeneration[device] = 0 }
            evaluate(&replay, sample: sample, arrival: arrival, anchor: anchor, &outcome, &replayed)
            // A fix newer than the last judged (one that joined the backlog) came after every fence
            // held now (a fence added merges the joined first): from it on, as after a sample in
            // order, those fences are known. Left at the device's, a fence added while fixes joined
            // stayed new at every step, and the entry into it was taken for first sight, silent.
            // No anchor at the merge: every fix is newer than anything judged.
            devices.knownGeneration[device] =
                anchorAtMerge.isNaN || sample.timestamp > anchorAtMerge ? generation : knownGeneration
            // What it says of settled fences was alerted already.
            let own = replayed[first...].filter { !settledIDs.contains(ExactID($0.fenceID)) }
            dropped += replayed.count - first - own.count
            replayed.replaceSubrange(first..., with: own)
            enteredScratch.removeAll { settledSlots.contains($0.fenceSlot) }
            _ = finishStep(&replay, device: deviceSlot, from: first, &replayed)
            alertedBySample.append(Array(replayed[first...]))
            anchor = (sample.timestamp, sample.lat, sample.lon)
            for mark in history.held[position].alerted {
                guard let stay = mark.dwellStay else { continue }
                // The stay alerted, as it was alerted: the backlog may show it ended before this
                // sample and another began (a dwell at the live fix for a stay the device left in
                // the gap). Its own dwell, given again by the replay at its true time, was a second.
                dwelt.insert(SampleHistory.Stay(fence: mark.fence, enteredAt: stay))
                guard let entry = replay.entries.firstIndex(where: { $0.fenceSlot == mark.fence }),
                    replay.entries[entry].state == .inside, replay.entries[entry].enteredAt <= stay
                else { continue }
                replay.entries[entry].dwellReported = true
                dwelt.insert(SampleHistory.Stay(fence: mark.fence, enteredAt: replay.entries[entry].enteredAt))
            }
        }
        if !dwelt.isEmpty {
            // A dwell of a stay alerted already, which the replay gave at or before its sample.
            func repeated(_ transition: Transition) -> Bool {
                guard transition.event == .dwell, transition.tourID == nil,
                    let slot = slotsByFenceID[ExactID(transition.fenceID)] else { return false }
                return dwelt.contains(SampleHistory.Stay(fence: slot, enteredAt: transition.at))
            }
            let count = replayed.count
            replayed.removeAll(where: repeated)
            dropped += count - replayed.count
            for step in alertedBySample.indices { alertedBySample[step].removeAll(where: repeated) }
        }
        current.entries = Self.compose(replay.entries, keeping: original, for: settled)
        current.tours = replay.tours
        // Numbered in that order after the device's last alert.
        for (offset, position) in replayed.indices.enumerated() { replayed[position].seq = seqBefore + UInt64(offset + 1) }
        devices.seq[device] = seqBefore + UInt64(replayed.count)
        counters.transitions -= dropped
        transitions.append(contentsOf: replayed)
        // What each held sample alerted now: a later late sample older than it says nothing there.
        for position in place..<history.held.count {
            history.held[position].alerted.append(contentsOf: marks(alertedBySample[position - place]))
        }
        // A late sample newer than the anchor (it came behind an inaccurate fix) is now the last
        // one judged: the next crossing is interpolated from it, and gaps are measured from it.
        // Left behind, a history begun afresh (a restart, a fence changed) took the anchor for its
        // floor, and the same fix sent again was merged twice.
        if let newest = history.held.last, !(newest.timestamp <= devices.anchorTime[device]) {
            devices.anchorTime[device] = newest.timestamp
            devices.anchorLat[device] = newest.lat
            devices.anchorLon[device] = newest.lon
            devices.anchorAccuracy[device] = newest.accuracy
            // Judged against every fence there is now, as a sample in order is (a fence added
            // meanwhile is known outside, and entering it is alerted).
            devices.knownGeneration[device] = generation
        }
        // The outage is the one whose start the first samples kept for an older part wait for, if
        // any: a straggler merged among them, or a later outage's backlog, fills no gap of its.
        let start = min(place, history.firstPinned ?? place)
        if history.awaitsAnOlderPart(
            from: start, gap: Self.gapSeconds, ratio: Self.outageRatio, latest: devices.lastTimestamp[device],
            window: settings.lateWindowSeconds),
            history.held.count < backlogSamples
        {
            // Its outage is not filled: an older part may come, and is judged with all of these.
            // Up to what a backlog arriving may hold: past that, merged in parts of that many.
            history.keepForAnOlderPart(from: start)
            devicesKeepingAnOlderPart.insert(deviceSlot)
        } else {
            history.unpinAll()
            // Before shrinking: what filled the outage's gap may be trimmed.
            history.noteBacklogMerged(gap: Self.gapSeconds)
        }
        // Before the trimming: the marks of every alert shown so far, this replay's among them.
        outcome.stateNotBefore = history.held.lazy.flatMap(\.alerted).map(\.confirmedAt).max() ?? -.infinity
        // Judged now: what is held shrinks back to what a newest sample keeps, and what an older
        // part needs.
        history.shrink(to: settings.heldSamples)
        outcome.recordChanged = true
        // A visit made and left within the backlog changed the inside set twice: the state is shown
        // again, at its newest sample, as in order it was at each change. Left as it was, its `at`
        // stayed older than the exit just alerted.
        let setChanged = Self.insideSlots(original) != Self.insideSlots(current.entries)
        outcome.insideChanged = setChanged
            || replayed.contains { $0.tourID == nil && ($0.event == .enter || $0.event == .exit) }
        outcome.onlyShownAgain = !setChanged
        putBack(current, for: deviceSlot)
        return outcome
    }

    /// How long a device that sends nothing keeps samples for an older part of its backlog: its
    /// upload has ended. Kept until its next report, a truck parked after uploading an hour's
    /// backlog held 200 kB.
    static let olderPartQuietSeconds = 300.0

    /// Whether a fix newer than the device's latest, come at `arrival`, ends its open backlog: once
    /// the backlog fills the gap it came for (`SampleHistory.openBacklogIsWhole`), holds all it
    /// may, or has had no late fix for `uploadPauseSeconds` (its upload has ended). Before, the fix
    /// joins it (`joinBacklog`).
    func newerFixEndsBacklog(of device: Int, arrival: Double) -> Bool {
        let index = devices.history[device]
        guard index >= 0 else { return true }
        let history = histories[index]
        return history.held.count >= backlogSamples
            || uploadEnded(history, at: arrival)
            || history.openBacklogIsWhole(gap: Self.gapSeconds, ratio: Self.outageRatio)
    }

    /// The upload of a backlog has ended at `now` (wall clock): no late fix for `uploadPauseSeconds`,
    /// or `joinLimit` since a newer fix first joined it. The one rule for a newer fix
    /// (`newerFixEndsBacklog`) and for the tick (`mergeBacklogs`), so that the two never disagree.
    func uploadEnded(_ history: SampleHistory, at now: Double) -> Bool {
        now - history.lastLateArrival >= uploadPauseSeconds || now - history.joinedSince >= Self.joinLimit
    }

    /// The longest a newer fix waits in a backlog it joined (wall clock, from the first that joined):
    /// an upload of late fixes that never fills its gap, a fix every few seconds, otherwise held the
    /// device's live alerts back for as long as it went on. Ten minutes: a tracker uploading an
    /// hour's fixes a request at a time, six a second, is done by then. At a minute, an upload of a
    /// fix a second beside live fixes was judged with a hole up to them after 60 s: an exit in the
    /// rest came 45 s early, and the rest was `too_late`.
    static let joinLimit = 600.0

    /// A backlog that live fixes have joined has ended once no late fix came for this long (wall
    /// clock): a tracker uploads its backlog in a burst, or a fix a request, and a pause this long
    /// ends it, as `silent_confirm_s` of quiet ends one no live fix joined. Waiting for
    /// `silent_confirm_s` instead, a backlog that never fills its gap (a tracker whose reports
    /// came 6 s apart where they had come every second) delayed every alert of its device by 20 s.
    static let uploadPause = 5.0
    var uploadPauseSeconds: Double { min(Self.uploadPause, settings.silentConfirmSeconds) }

    /// A fix newer than the device's latest, come while its backlog has not filled its gap yet (a
    /// tracker sending live fixes while it uploads, in parts, newest or oldest first): held with
    /// the backlog, not judged, and judged in its place by the same replay, once a newer fix comes
    /// after the backlog is whole, or `uploadPause` after its last late fix. Ending the
    /// backlog, it merged the part come so far with a hole where the rest was still to come: a
    /// visit made in the outage was alerted 45 s late, or an exit 60 s late, and an alert is never
    /// withdrawn. Judged as it came, beside the open backlog, it confirmed changes on live
    /// evidence before the backlog's, which then said nothing for those fences.
    mutating func joinBacklog(_ deviceSlot: Int32, sample: PositionSample, arrival: Double) -> SampleOutcome {
        let device = Int(deviceSlot)
        devices.lastTimestamp[device] = sample.timestamp
        devices.lastHeard[device] = arrival
        counters.accepted += 1
        let index = devices.history[device]
        var history = histories.take(index)
        var held = SampleHistory.Held(sample, before: record(of: deviceSlot)?.entries ?? [])
        held.awaitingMerge = true
        history.held.append(held)
        history.noteJoined(at: arrival)
        histories.put(history, at: index)
        return SampleOutcome(status: .accepted)
    }

    /// Lets go of the samples kept for an older backlog part of devices quiet for
    /// `olderPartQuietSeconds` (wall clock): what they hold shrinks back to what a newest sample keeps.
    mutating func releaseQuietOlderParts(now: Double) {
        guard !devicesKeepingAnOlderPart.isEmpty else { return }
        for deviceSlot in devicesKeepingAnOlderPart {
            let device = Int(deviceSlot)
            let index = devices.history[device]
            let pinned = index >= 0 && histories[index].firstPinned != nil
            guard !pinned || now - devices.lastHeard[device] >= Self.olderPartQuietSeconds else { continue }
            devicesKeepingAnOlderPart.remove(deviceSlot)
            guard pinned else { continue }
            let capacity = settings.heldSamples
            histories.modify(index) { history in
                history.unpinAll()
                history.shrink(to: capacity)
            }
        }
    }

    /// Merges every backlog still held, however recent its last sample: at a clean stop (the
    /// held samples are in memory only). Returns the devices whose inside set changed.
    public mutating func mergeAllBacklogs(now: Double, into transitions: inout [Transition]) -> [StateChange] {
        mergeBacklogs(quietFor: -.infinity, now: now, into: &transitions)
    }

    /// Merges the backlogs that newer fixes joined before a fence is added or changed: those fixes
    /// came before it. Judged after it, as of a generation they had not known, the entry into a new
    /// fence was taken for its first sight, silent.
    mutating func mergeJoinedBacklogs(into transitions: inout [Transition], changes: inout [StateChange]) {
        guard !devicesWithOpenBacklog.isEmpty else { return }
        changes += mergeBacklogs(quietFor: -.infinity, now: nil, onlyJoined: true, into: &transitions)
    }

    /// Merges every backlog before the fence epoch moves (a fence removed, expired or reassigned):
    /// the held snapshots name fence slots that may be other fences after it. Each as of its own
    /// latest sample's arrival.
    mutating func mergeBacklogsBeforeEpochChange(into transitions: inout [Transition], changes: inout [StateChange]) {
        guard !devicesWithOpenBacklog.isEmpty else { return }
        changes += mergeBacklogs(quietFor: -.infinity, now: nil, into: &transitions)
    }

    /// Merges the backlogs of devices quiet for `seconds` at `now` since their latest late sample
    /// (`now` nil: each as of that sample's arrival); `onlyJoined`: only those newer fixes joined.
    mutating func mergeBacklogs(
        quietFor seconds: Double, now: Double?, onlyJoined: Bool = false, into transitions: inout [Transition]
    ) -> [StateChange] {
        var changed: [StateChange] = []
        for deviceSlot in devicesWithOpenBacklog.sorted() {
            let index = devices.history[Int(deviceSlot)]
            if onlyJoined, !(index >= 0 && histories[index].joined) { continue }
            let last = index >= 0 ? histories[index].lastLateArrival : -.infinity
            // Quiet for `seconds`, or, once newer fixes joined it, its upload ended: they wait in it.
            let ended = index >= 0 && histories[index].joined && uploadEnded(histories[index], at: now ?? last)
            guard (now ?? last) - last >= seconds || ended else { continue }
            let outcome = mergeBacklog(of: deviceSlot, arrival: now ?? last, into: &transitions)
            guard outcome.recordChanged else { continue }
            let id = devices.ids[Int(deviceSlot)]
            mergedBacklogs.append(id)
            let device = Int(deviceSlot)
            if outcome.insideChanged, !devices.anchorTime[device].isNaN {
                // The state keeps showing the newest sample (docs/rules.md "Late samples").
                changed.append(
                    StateChange(
                        device: id, at: max(devices.anchorTime[device], outcome.stateNotBefore), lat: devices.anchorLat[device],
                        lon: devices.anchorLon[device], onlyShownAgain: outcome.onlyShownAgain))
            }
        }
        return changed
    }

    /// The devices whose backlog the last tick (or a fence change since) merged: their records
    /// changed. Each tick starts the list afresh.
    public mutating func takeMergedBacklogs() -> [String] {
        defer { mergedBacklogs = [] }
        return mergedBacklogs
    }

    /// The replay's entries for every fence but the settled ones, which keep `original`'s.
    static func compose(_ replayed: [RegionEntry], keeping original: [RegionEntry], for settled: [Int32]) -> [RegionEntry] {
        guard !settled.isEmpty else { return replayed }
        return replayed.filter { !settled.contains($0.fenceSlot) } + original.filter { settled.contains($0.fenceSlot) }
    }

    static func insideSlots(_ entries: [RegionEntry]) -> Set<Int32> {
        Set(entries.lazy.filter { $0.state == .inside }.map(\.fenceSlot))
    }
}
