import FleetFenceJournal
import GeofenceEngine
import Logging

/// What the core decided one message or tick should do, as a value: what to journal, then what
/// to publish, in order. The core returns it and acts on nothing; ``CoreLoop`` hands it to the
/// journal's writer, which commits ``changes`` and then gives the step to the publisher.
struct Effects: JournalStep {
    struct Message: Sendable {
        var topic: String
        var payload: [UInt8]
        var qos: Int32
        var retain: Bool
        /// What it says, for the readers beside MQTT (the HTTP stream, the read model, metrics).
        var kind: Kind = .other
    }

    enum Kind: Sendable {
        case alert(AlertRecord)
        /// A device's retained state: its fences inside changed (or first sight).
        case state(DeviceStateChange)
        /// A device's retained progress in a tour.
        case tourProgress
        case other
    }

    /// A log line the core asks for; the edge that runs the core writes it.
    struct LogLine: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata = [:]
    }

    var changes = JournalChanges()
    /// Published in this order once ``changes`` is committed.
    var messages: [Message] = []
    /// Fences whose retained registry entries follow the messages. Topics and payloads are made
    /// on the writer's thread: for 100,000 fences a third of a second kept out of the core's lock.
    var registry: [Fence] = []
    /// The whole fence registry is owed (after a connect, once this instance knows it publishes
    /// the registry, `RegistryLeadership`): the service publishes it a slice at a time
    /// (``GeofenceService/republishRegistry(loop:bus:)``), so that alerts made meanwhile wait for
    /// a slice, not for 100,000 entries (a restart: 0.28 s).
    var registryOwed = false
    /// Written by the edge at once: a log line waits for no journal.
    var logs: [LogLine] = []
    /// Fences and tours set or replaced by this step, as held: the read side follows them once
    /// the step is committed (and what it removes, from ``changes``).
    var heldFences: [Fence] = []
    var heldTours: [TourDefinition] = []
    /// Devices the core had forgotten before this step's first: `changes.removedDevices[i]` is
    /// its forget number `forgetsBefore + i + 1`. The read side orders a forget against the views
    /// the tick hands it by this number (``ReadModel/update(devices:takenAfter:)``).
    var forgetsBefore = 0

    /// Nothing to journal or publish (log lines aside).
    var isEmpty: Bool { changes.isEmpty && messages.isEmpty && registry.isEmpty }

    mutating func publish(_ topic: String, _ payload: [UInt8], qos: Int32, retain: Bool, kind: Kind = .other) {
        messages.append(Message(topic: topic, payload: payload, qos: qos, retain: retain, kind: kind))
    }

    mutating func log(_ level: Logger.Level, _ message: String, _ metadata: Logger.Metadata = [:]) {
        logs.append(LogLine(level: level, message: message, metadata: metadata))
    }
}
