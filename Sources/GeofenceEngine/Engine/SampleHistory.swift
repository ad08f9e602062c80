/// The few latest samples of one device, each with the device's regions as they were just before
/// it: what a late sample (docs/rules.md "Late samples") is merged with. Held in memory only; a restart
/// starts with none.
///
/// Bounded by a count, not by the late window: a fleet of a million devices cannot hold an hour of
/// fixes each. When full, the sample that followed the shortest gap goes: a backlog fills a
/// coverage gap, so the samples that end long gaps (the live fix sent before the backlog) are the
/// ones a merge needs.
struct SampleHistory: Sendable {
    struct Held: Sendable {
        var timestamp: Double
        var lat: Double
        var lon: Double
        /// NaN: unknown. A `Double`, as the stream's: a merged speeding alert's `max_speed_kmh` is
        /// the one an upload oldest first gives (as a `Float`, 73.07999725 for 73.08; 8 bytes a
        /// sample more, 56).
        var speed: Double
        /// The device's region entries just before this sample.
        var before: [RegionEntry]
        /// Alerts this sample (or silence after it, or a sample dropped after it) confirmed: a
        /// late sample older than one says nothing for its fence.
        var alerted: [AlertMark] = []
        /// NaN: unknown. A `Float` is enough: it only widens the margin (`max(hysteresis_m, acc)`).
        var accuracy: Float
        /// It ended a gap taken for an outage (`GeofenceEngine.outageRatio`): while it is held,
        /// reports after shorter gaps keep the history, for the outage's backlog. On the sample,
        /// so that it stays through the backlog's inserts and merges (in the 56 bytes it had).
        var endsOutage = false
        /// A backlog was merged since it ended its outage: a device reporting every few seconds no
        /// longer keeps every report for it (`GeofenceEngine.heldAfterAnOutage`).
        var backlogMerged = false
        /// Merged as part of a backlog that left the start of its outage unfilled, or after such a
        /// part: an older part may still come, and is judged with every fix after it, so this one
        /// is never trimmed for room (`keepForAnOlderPart`). In the 56 bytes it had.
        var pinned = false
        /// Held and not judged yet, merged with its backlog (`openSince`): a late sample, or a newer
        /// fix that joined the backlog (`GeofenceEngine.joinBacklog`). In the 56 bytes it had.
        var awaitingMerge = false

        var sample: PositionSample {
            PositionSample(
                lat: lat, lon: lon, timestamp: timestamp, accuracy: accuracy.isNaN ? nil : Double(accuracy),
                speed: speed.isNaN ? nil : speed)
        }
    }

    struct AlertMark: Sendable {
        var fence: Int32
        var confirmedAt: Double
        /// For a dwell, the start of its stay (its `at`); nil for a change of state or speeding.
        var dwellStay: Double?
    }

    /// A stay at a fence whose dwell was published.
    struct Stay: Hashable {
        var fence: Int32
        var enteredAt: Double
    }

    // In this order, the optional anchor's tag, `merging` and `epoch` share one word: 56 bytes a
    // history, where the order of first thought took 8 more.
    var held: [Held] = []
    /// Samples at or before this time are folded into `held[0].before`: a late sample this old
    /// cannot be placed and is dropped.
    var floor = -Double.infinity

    /// The times of a backlog arriving and of samples trimmed, in a buffer of their own only while
    /// one is not its default: a device reporting steadily after a gap holds a history and never
    /// has a backlog, and the five times in the history were 40 of its 88 bytes (a million such
    /// devices in fleetbench's scale phase, docs/performance.md "Memory by part").
    private struct Times: Equatable {
        var openSince = Double.infinity
        var lastLateArrival = -Double.infinity
        var joinedSince = Double.infinity
        var trimmedFrom = Double.infinity
        var trimmedThrough = -Double.infinity
    }

    /// Empty, or one `Times` that is not the default (an array: copied on write with the history).
    private var times: [Times] = []

    /// Changes the times in place; back to the default, their buffer goes.
    private mutating func changeTimes(_ change: (inout Times) -> Void) {
        if times.isEmpty {
            var first = Times()
            change(&first)
            if first != Times() { times = [first] }
        } else {
            change(&times[0])
            if times[0] == Times() { times = [] }
        }
    }

    /// The oldest late sample held and not merged yet (+infinity: none): a backlog arriving is
    /// merged at once, when it has ended.
    var openSince: Double { times.first?.openSince ?? .infinity }
    /// The wall clock of the latest late sample held: quiet for `silent_confirm_s` since (5 s once
    /// a newer fix joined it, `GeofenceEngine.uploadPause`), the backlog has ended.
    var lastLateArrival: Double { times.first?.lastLateArrival ?? -.infinity }
    /// The wall clock at which a newer fix first joined the open backlog (`GeofenceEngine.joinBacklog`;
    /// +infinity: none did): an upload under way, ended by a short pause (`GeofenceEngine.uploadPause`),
    /// at the latest `GeofenceEngine.joinLimit` after it.
    var joinedSince: Double { times.first?.joinedSince ?? .infinity }
    var joined: Bool { joinedSince.isFinite }
    /// The oldest and newest judged samples trimmed from among the held ones (+infinity and
    /// -infinity: none): a late sample between them would be judged without them. Mostly it is a
    /// repeat of a fix already merged (a QoS 1 redelivery, a tracker sending a part twice): merged
    /// again, its replay missed the fix where a visit's evidence began, and an enter came 65 s late.
    var trimmedFrom: Double { times.first?.trimmedFrom ?? .infinity }
    var trimmedThrough: Double { times.first?.trimmedThrough ?? -.infinity }
    /// `timestamp` falls among samples trimmed away (`trimmedFrom`).
    func amongTrimmed(_ timestamp: Double) -> Bool { timestamp >= trimmedFrom && timestamp <= trimmedThrough }
    /// A late sample of `timestamp` arrived at `arrival` and is held: the backlog is open.
    mutating func noteLate(_ timestamp: Double, arrival: Double) {
        changeTimes {
            $0.openSince = min($0.openSince, timestamp)
            $0.lastLateArrival = arrival
        }
    }

    /// A newer fix joined the open backlog at `arrival`.
    mutating func noteJoined(at arrival: Double) { changeTimes { $0.joinedSince = min($0.joinedSince, arrival) } }

    /// The wall clock moved on by `seconds` that nobody saw (`GeofenceEngine.postponeSilence`).
    mutating func postponeLateArrival(by seconds: Double) { changeTimes { $0.lastLateArrival += seconds } }

    /// Closes the open backlog for its merge: its oldest sample, the latest arrival and whether a
    /// newer fix joined it. Its times go back to none, so that a history whose backlog was merged
    /// keeps no buffer for them (only the span trimmed, while there is one).
    mutating func endBacklog() -> (since: Double, lastArrival: Double, joined: Bool) {
        let ended = (openSince, lastLateArrival, joined)
        changeTimes {
            $0.openSince = .infinity
            $0.lastLateArrival = -.infinity
            $0.joinedSince = .infinity
        }
        return ended
    }

    /// The buffer of the times, when they have one (``AllocatedBytes``).
    var timesBytes: Int { AllocatedBytes.array(times) }
    /// The latest accurate sample before `held[0]`: where a crossing into it is interpolated from.
    var baseAnchor: (Double, Double, Double)?
    /// A late sample was held since the last newest one was appended: a backlog arrived, and the
    /// next newest sample keeps the history rather than starting afresh.
    var merging = false
    /// The engine's fence epoch when these snapshots were taken: a fence removed or reassigned
    /// since makes them unusable (their slots may name other fences now).
    var epoch: UInt32 = 0
    var isOpen: Bool { openSince.isFinite }
    /// Nothing was judged before `held[0]`: the device's first sample, or a late one before it.
    var startsAtFirstSight: Bool { floor == -.infinity }

    /// Where a sample of `timestamp` goes among the held ones: the first held at or after it.
    func place(of timestamp: Double) -> Int {
        var (low, high) = (0, held.count)
        while low < high {
            let middle = (low + high) / 2
            if held[middle].timestamp < timestamp { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The longest gap a held sample ended: the first's since `floor`, none for a first sight. As
    /// an endless gap, a first sight changed which fixes a second, older backlog part is judged
    /// with, and a dwell came 40 s late (`LateSampleEdgeTests.aDwellMarkThenASecondBacklog`).
    var longestGap: Double {
        var (longest, previous) = (0.0, floor)
        for sample in held {
            if previous.isFinite { longest = max(longest, sample.timestamp - previous) }
            previous = sample.timestamp
        }
        return longest
    }

    /// The gap a report at `latest` ended, when it is the newest held; nil when unknown (not
    /// held, or nothing judged before it).
    func gap(endedAt latest: Double) -> Double? {
        guard let last = held.last, last.timestamp == latest else { return nil }
        let previous = held.count > 1 ? held[held.count - 2].timestamp : floor
        return previous.isFinite ? last.timestamp - previous : nil
    }

    /// A held sample ended an outage: its backlog may still come.
    var holdsAnOutage: Bool { held.contains { $0.endsOutage } }

    /// When the newest held sample that ended an outage whose backlog has not come was taken.
    var outageAwaitingBacklog: Double? { held.last { $0.endsOutage && !$0.backlogMerged }?.timestamp }

    /// A backlog was merged: an outage it filled (no gap of more than `gap` left before the sample
    /// that ended it) has had its backlog. Any merge closing every outage, two live fixes swapped
    /// on the way closed it before its backlog came.
    mutating func noteBacklogMerged(gap: Double) {
        for position in held.indices where held[position].endsOutage {
            let previous = position > 0 ? held[position - 1].timestamp : floor
            if held[position].timestamp - previous <= gap { held[position].backlogMerged = true }
        }
    }

    /// Whether the backlog merged, from `held[place]` on, may still have an older part: the gap
    /// before that fix is longer than the device's reports held after it (`ratio` times the
    /// shortest gap among them, and more than `gap`), or nothing was judged before it (a first
    /// fix's backlog); and an older fix would still be within the late window of `latest`. Merged
    /// and then trimmed to four, a second, older part newest first was judged with a hole where
    /// the first part's fixes had been: a device flickering at a fence, never inside for
    /// `debounce_s`, was alerted a visit, and a real visit's exit came 80 s late.
    func awaitsAnOlderPart(from place: Int, gap: Double, ratio: Double, latest: Double, window: Double) -> Bool {
        guard place < held.count, held[place].timestamp - gap > latest - window else { return false }
        let previous = place > 0 ? held[place - 1].timestamp : floor
        guard previous.isFinite else { return true }
        let before = held[place].timestamp - previous
        var cadence = Double.infinity
        for position in (place + 1)..<held.count { cadence = min(cadence, held[position].timestamp - held[position - 1].timestamp) }
        return before > gap && (cadence.isInfinite || before > ratio * cadence)
    }

    /// Whether the backlog arriving fills the gap it came for: from the judged sample before its
    /// oldest fix to the newest held, no gap is longer than a report (`gap`, or `ratio` times the
    /// shortest gap among them). Sent newest first, a backlog fills its gap from the newer end;
    /// oldest first, from the older; with live fixes sent while it uploads, from both. Never whole
    /// when nothing was judged before its oldest fix (the device's first sight): an older fix may
    /// still come, and a part merged early settled a change the rest of the backlog contradicted
    /// (an exit alerted, the enter before it then `too_late`).
    func openBacklogIsWhole(gap: Double, ratio: Double) -> Bool {
        guard let oldest = held.firstIndex(where: \.awaitingMerge) else { return true }
        var previous = oldest > 0 ? held[oldest - 1].timestamp : floor
        guard previous.isFinite else { return false }
        var (cadence, longest) = (Double.infinity, 0.0)
        for position in oldest..<held.count {
            let timestamp = held[position].timestamp
            cadence = min(cadence, timestamp - previous)
            longest = max(longest, timestamp - previous)
            previous = timestamp
        }
        return longest <= gap || longest <= ratio * cadence
    }

    /// Keeps every held sample from `place` on until the outage is filled or the device's holding
    /// ends (`awaitsAnOlderPart`); later reports are held and trimmed as usual beside them.
    mutating func keepForAnOlderPart(from place: Int) {
        for position in place..<held.count { held[position].pinned = true }
    }

    /// Where the samples kept for an older part begin, if any are.
    var firstPinned: Int? { held.firstIndex(where: \.pinned) }

    mutating func unpinAll() {
        for position in held.indices { held[position].pinned = false }
    }

    /// Held samples not kept for an older part (`pinned`); counted only when over a capacity.
    private var unpinnedCount: Int { held.reduce(0) { $0 + ($1.pinned ? 0 : 1) } }

    /// Appends the device's newest sample. `anchor`: the device's accurate sample before it.
    /// `oldestFirst`: over `capacity`, the oldest go, not the sample after the shortest gap (and
    /// the samples kept for an older part before them: that part would come behind too many).
    mutating func append(
        _ sample: Held, capacity: Int, window: Double, anchor: (Double, Double, Double)?, oldestFirst: Bool = false
    ) {
        if held.isEmpty { baseAnchor = anchor }
        held.append(sample)
        if oldestFirst, held.count > max(1, capacity) {
            var excess = unpinnedCount - max(1, capacity)
            var count = 0
            while excess > 0 {
                if !held[count].pinned { excess -= 1 }
                count += 1
            }
            dropFirst(count)
        }
        trim(capacity: capacity, window: window)
    }

    /// Inserts a late sample, held until its backlog is merged, at `position`, keeping time order.
    mutating func insert(_ sample: Held, at position: Int, capacity: Int, window: Double) {
        held.insert(sample, at: position)
        trim(capacity: capacity, window: window, keeping: held[position].timestamp)
    }

    /// Keeps `capacity` samples at most, once all are judged (a backlog merged).
    mutating func shrink(to capacity: Int) {
        trim(capacity: capacity, window: .infinity)
        // Removing never gives an array's room back: a device quiet after uploading an hour's
        // backlog kept 200 KB for its four fixes.
        if held.capacity > 4 * max(capacity, 4) {
            // Copied into an array of its own size (`Array(held)` would keep the same buffer).
            var compact: [Held] = []
            compact.reserveCapacity(held.count)
            compact.append(contentsOf: held)
            held = compact
        }
    }

    /// Drops what the window no longer reaches, then, over `capacity`, the sample after the
    /// shortest gap: never the newest, nor the late sample just held (`keeping`), nor one kept for
    /// an older part (`pinned`, not counted). Only judged samples may go: an open backlog is
    /// merged before it fills `backlogSamples`.
    private mutating func trim(capacity: Int, window: Double, keeping kept: Double = .nan) {
        guard let newest = held.last?.timestamp else { return }
        // Never one not judged yet: fixes joining a backlog move the newest on while it arrives.
        while held.count > 1, held[0].timestamp < newest - window, !held[0].awaitingMerge { dropFirst() }
        guard held.count > max(1, capacity) else { return }
        // Counted once: only unpinned samples go below.
        var unpinned = unpinnedCount
        while unpinned > max(1, capacity) {
            var shortest = 0
            var shortestGap = Double.infinity
            for position in 0..<(held.count - 1) where held[position].timestamp != kept && !held[position].pinned {
                let gap = held[position].timestamp - (position == 0 ? floor : held[position - 1].timestamp)
                if gap < shortestGap {
                    shortest = position
                    shortestGap = gap
                }
            }
            if shortest == 0 {
                // No candidate but kept ones: nothing may go.
                guard !held[0].pinned else { break }
                dropFirst()
                unpinned -= 1
            } else {
                // Its successor's snapshot already holds its effect; what it confirmed moves along,
                // with its own time.
                let dropped = held.remove(at: shortest)
                unpinned -= 1
                changeTimes {
                    $0.trimmedFrom = min($0.trimmedFrom, dropped.timestamp)
                    $0.trimmedThrough = max($0.trimmedThrough, dropped.timestamp)
                }
                held[shortest].alerted.append(contentsOf: dropped.alerted)
                // Its successor now ends its gap too.
                if dropped.endsOutage, !held[shortest].endsOutage {
                    held[shortest].endsOutage = true
                    held[shortest].backlogMerged = dropped.backlogMerged
                }
            }
        }
    }

    private mutating func dropFirst() { dropFirst(1) }

    /// Drops the `count` oldest; what they confirmed moves to the first left.
    private mutating func dropFirst(_ count: Int) {
        guard count > 0 else { return }
        let last = held[count - 1]
        let marks = held[..<count].flatMap(\.alerted)
        held.removeFirst(count)
        if !held.isEmpty { held[0].alerted.append(contentsOf: marks) }
        floor = last.timestamp
        baseAnchor = (last.timestamp, last.lat, last.lon)
    }

    /// Fences whose state changed (enter, exit) or that alerted speeding after `time`, as far as the
    /// held samples know. Not dwells: a dwell changes no state (see `mergeBacklog`).
    func fencesAlerted(after time: Double) -> [Int32] {
        held.flatMap { $0.alerted.lazy.filter { $0.confirmedAt > time && $0.dwellStay == nil }.map(\.fence) }
    }

    /// The held sample before `position`, else the anchor before them all. Only accurate samples
    /// are held (the others say nothing), so each is an anchor.
    func anchor(before position: Int) -> (Double, Double, Double)? {
        guard position > 0 else { return baseAnchor }
        let sample = held[position - 1]
        return (sample.timestamp, sample.lat, sample.lon)
    }
}

extension SampleHistory.Held {
    /// In an extension, so that the memberwise initializer stays (a history made of a first fix
    /// held uses it).
    init(_ sample: PositionSample, before: [RegionEntry], alerted: [SampleHistory.AlertMark] = []) {
        self.init(
            timestamp: sample.timestamp, lat: sample.lat, lon: sample.lon, speed: sample.speed ?? .nan,
            before: before, alerted: alerted, accuracy: sample.accuracy.map { Float($0) } ?? .nan)
    }
}

/// The histories of the devices that hold one, in one array with a free list, reached from
/// `DeviceTable.history`: a device in a steady stream holds none, and checking costs no hashing.
typealias SampleHistories = FreeListArray<SampleHistory>

extension FreeListArray where Item == SampleHistory {
    init() {
        self.init(vacant: SampleHistory())
    }

    /// Takes history `index` out, leaving an empty one.
    mutating func take(_ index: Int32) -> SampleHistory {
        take(index, leaving: SampleHistory())
    }

    mutating func put(_ history: SampleHistory, at index: Int32) {
        self[index] = history
    }

    mutating func markAlerted(_ index: Int32, _ mark: SampleHistory.AlertMark) {
        modify(index) { history in
            guard !history.held.isEmpty else { return }
            history.held[history.held.count - 1].alerted.append(mark)
        }
    }
}
