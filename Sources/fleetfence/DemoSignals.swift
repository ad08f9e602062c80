import FleetSimulator
import Foundation
import Synchronization
import UnixSignals

/// SIGINT (Ctrl-C) and SIGTERM while the demo runs.
///
/// While trucks drive, Ctrl-C escalates: the first stops publishing and still reports (after the
/// wait for the service's last alerts), the second reports at once, the third quits. SIGTERM
/// comes from a program that wants the demo gone, so it starts at the second step. Before the
/// trucks start and after they finished there is nothing to report, so any signal quits.
/// Quitting always runs the teardown first: no broker or service is left behind.
final class DemoSignals: Sendable {
    private struct State {
        var simulation: Simulation?
        var steps = 0
        var received: Int32?
        var quitting = false
        /// The run is over and the map is still served: a signal ends the demo as done.
        var lingering = false
    }

    private let state = Mutex(State())
    private let teardown: DemoTeardown

    init(teardown: DemoTeardown) {
        self.teardown = teardown
    }

    /// Takes over SIGINT and SIGTERM (trapped before this returns, so none is missed); cancel the
    /// task to let go. Children get the default handlers back (see LocalBroker's `ChildProcess`).
    func install() async -> Task<Void, Never> {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        return Task { [weak self] in
            for await signal in signals {
                self?.received(signal.rawValue)
            }
        }
    }

    /// The signal that interrupted the run, if any.
    var received: Int32? { state.withLock { $0.received } }

    /// The demo is being torn down by a signal: whatever fails now is a consequence, not news.
    var quitting: Bool { state.withLock { $0.quitting } }

    /// After the summary, the service still serving the map: the next signal quits with status 0.
    func linger() {
        state.withLock { $0.lingering = true }
    }

    /// Signals now stop `simulation` (`nil`: they quit again).
    func driving(_ simulation: Simulation?) {
        state.withLock { $0.simulation = simulation }
    }

    private func received(_ number: Int32) {
        if state.withLock({ $0.lingering }) {
            teardown.run()
            exit(0)
        }
        let (simulation, step) = state.withLock { state -> (Simulation?, Int) in
            state.received = state.received ?? number
            if state.simulation != nil {
                state.steps = number == SIGTERM ? max(state.steps + 1, 2) : state.steps + 1
            }
            state.quitting = state.simulation == nil || state.steps >= 3
            return (state.simulation, state.steps)
        }
        guard let simulation, step < 3 else {
            DemoOutput.note("fleetfence demo: stopping the service and the broker")
            teardown.run()
            exit(128 + number)
        }
        // Each call moves the simulation one step: stop publishing, then stop waiting.
        while simulation.stopRequests < step { simulation.stop() }
        if step == 1 {
            DemoOutput.note("fleetfence demo: trucks stopped; waiting for the service's last alerts (interrupt again to report now)")
        } else {
            DemoOutput.note("fleetfence demo: reporting now (interrupt again to quit)")
        }
    }
}
