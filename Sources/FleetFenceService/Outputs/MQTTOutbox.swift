import FleetFenceJournal
import Foundation
import MQTT
import Synchronization

/// Which published messages the broker has acknowledged, as a ``PublishedMark`` the journal's
/// writer journals: at start the service publishes again what a `kill -9` may have left in
/// libmosquitto's memory (docs/reliability.md "What is promised").
///
/// After each batch of committed steps it publishes, ``MQTTOutput`` notes the bus's ticket count
/// (every QoS 1 publish so far), the last alert id committed and the time. A batch is with the
/// broker once its ticket is acknowledged; batches are published in commit order, so the mark
/// is the newest batch acknowledged with every batch before it. Its time is when that batch was
/// published: the next batch's device rows were written after it (the writer commits a batch
/// after delivering the one before), so a device whose state is not yet acknowledged has a row
/// written at or after the mark's time. Called on the writer's thread (after it stopped, on the
/// threads that commit meanwhile), and by the tasks that publish states again.
final class MQTTOutbox: Sendable {
    private struct Batch {
        var ticket: UInt64
        var alertID: Int64
        var publishedAt: Double
    }

    /// Messages published again (at start, after a reconnect): until the broker acknowledged the
    /// last of them, the mark goes no further than `cap`, so that a kill meanwhile publishes
    /// them again at the next start. `ticket` is the last one's, once all were handed to the bus.
    private struct Republishing {
        var cap: PublishedMark
        var ticket: UInt64?
    }

    private struct State {
        var batches: [Batch] = []
        var head = 0
        var alertID: Int64
        var journaled: PublishedMark?
        var republishing: Republishing?
        /// A QoS 1 message was dropped (the backlog full): the mark stops where it is, and the
        /// next start publishes again from there.
        var stuck = false
    }

    private let bus: any MessageBus
    private let state: Mutex<State>

    /// `alertID`: the journal's last alert at start; `journaled`: the mark the journal holds.
    init(bus: any MessageBus, alertID: Int64, journaled: PublishedMark?) {
        self.bus = bus
        state = Mutex(State(alertID: alertID, journaled: journaled))
    }

    /// The wall clock, as the journal's `updated_at` of device rows is.
    static var now: Double { Date().timeIntervalSince1970 }

    /// A batch was handed to the bus; `alertID` is the last alert committed with it or before.
    func published(alertID: Int64) {
        let ticket = bus.publishTickets.issued
        let now = Self.now
        state.withLock { state in
            state.alertID = max(state.alertID, alertID)
            guard !state.stuck else { return }
            state.batches.append(Batch(ticket: ticket, alertID: state.alertID, publishedAt: now))
        }
    }

    func dropped() {
        state.withLock { state in
            state.stuck = true
            state.batches = []
            state.head = 0
        }
    }

    /// Messages are about to be published again: the mark stays at most at `cap` until
    /// ``endRepublish()`` and their acknowledgement. Two at once keep the lower cap.
    func beginRepublish(cap: PublishedMark) {
        state.withLock { state in
            let cap = state.republishing.map {
                PublishedMark(alertID: min($0.cap.alertID, cap.alertID), time: min($0.cap.time, cap.time))
            } ?? cap
            state.republishing = Republishing(cap: cap, ticket: nil)
        }
    }

    /// Every message published again has been handed to the bus.
    func endRepublish() {
        let ticket = bus.publishTickets.issued
        state.withLock { state in
            if state.republishing != nil { state.republishing?.ticket = ticket }
        }
    }

    /// The mark to journal in the writer's next transaction, `nil` when it has not moved;
    /// `awaiting` while published messages wait for the broker's acknowledgement. `force`: even
    /// when only its time moved (a clean stop's last mark).
    func mark(force: Bool = false) -> (mark: PublishedMark?, awaiting: Bool) {
        let acknowledged = bus.publishTickets.acknowledgedThrough
        let now = Self.now
        return state.withLock { state -> (mark: PublishedMark?, awaiting: Bool) in
            guard !state.stuck else { return (nil, false) }
            var newest: Batch?
            while state.head < state.batches.count, state.batches[state.head].ticket <= acknowledged {
                newest = state.batches[state.head]
                state.head += 1
            }
            if state.head > 1_024, state.head * 2 > state.batches.count {
                state.batches.removeFirst(state.head)
                state.head = 0
            }
            if let ticket = state.republishing?.ticket, ticket <= acknowledged { state.republishing = nil }
            let awaiting = state.head < state.batches.count || state.republishing?.ticket != nil
            var mark: PublishedMark
            if state.head == state.batches.count {
                // Everything published is acknowledged: so is every row written until now.
                mark = PublishedMark(alertID: state.alertID, time: now)
            } else if let newest {
                mark = PublishedMark(alertID: newest.alertID, time: newest.publishedAt)
            } else {
                return (nil, awaiting)
            }
            if let cap = state.republishing?.cap {
                mark = PublishedMark(alertID: min(mark.alertID, cap.alertID), time: min(mark.time, cap.time))
            }
            if let journaled = state.journaled, !force, mark.alertID == journaled.alertID {
                // Only the time moved: journaled once a second. A new alert is journaled at once,
                // since a kill before that would publish it twice; a state's time lagging a
                // second only sends that second's states again at the next start. Journaled
                // with every acknowledged batch, the marks cost the writer 0.5-1.2 µs a position
                // in fleetbench (an extra transaction after most batches when idle).
                // (A time going back is a reconnect's cap: journaled at once.)
                if mark.time >= journaled.time, mark.time - journaled.time < 1 { return (nil, awaiting) }
            }
            state.journaled = mark
            return (mark, awaiting)
        }
    }
}
