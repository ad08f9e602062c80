import FleetFenceCodecs
import GeofenceEngine

/// The inputs that name their device in the payload, and the HTTP ones (docs/trackers.md "Connecting
/// trackers"): decoded by their own codec, then fed exactly as a native position is.
extension GeofenceCore {
    /// A Traccar or mapped message: a rejection goes to the errors topic of the device it names,
    /// or to `<prefix>/errors/` when it names none that can be a topic level.
    mutating func handleForeign(
        format: PositionTopicRouter.Format, topic: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer, arrival: Double,
        into effects: inout Effects
    ) {
        let topicText = String(decoding: topic, as: UTF8.self)
        let decoded: Result<ForeignPosition, PositionRejection>
        let device: () -> String?
        switch format {
        case .traccar:
            decoded = TraccarPositionDecoder.decode(payload)
            device = { TraccarPositionDecoder.deviceID(in: payload) }
        case let .mapping(index):
            let mapping = mappings[index]
            decoded = mapping.decode(payload, topic: topicText)
            device = { mapping.deviceID(in: payload, topic: topicText) }
        case .native, .ownTracks, .http:
            preconditionFailure("formats whose device is in the topic (or the request) are not routed here")
        }
        switch decoded {
        case let .success(foreign):
            _ = feed(
                device: foreign.device, position: foreign.position, format: format, topic: topic, payload: payload,
                arrival: arrival, into: &effects)
        case let .failure(rejection) where rejection.isIgnored:
            counters.ignored += 1
        case let .failure(rejection):
            reject(device: device() ?? "", topic: topicText, payload: payload, reason: rejection.description, into: &effects)
        }
    }

    /// Positions from the HTTP interface, decoded by the caller, fed in order in one step; each
    /// answered to the caller, not on the errors topic, and counted as MQTT positions are.
    mutating func ingest(
        _ items: [Result<ForeignPosition, PositionRejection>], source: String, arrival: Double
    ) -> (Effects, [PositionOutcome]) {
        var effects = Effects()
        var outcomes: [PositionOutcome] = []
        outcomes.reserveCapacity(items.count)
        for item in items {
            switch item {
            case let .success(foreign):
                outcomes.append(feed(
                    device: foreign.device, position: foreign.position, format: .http, topic: source, payload: [],
                    arrival: arrival, into: &effects))
            case let .failure(rejection) where rejection.isIgnored:
                counters.ignored += 1
                outcomes.append(.ignored(rejection.description))
            case let .failure(rejection):
                countRejection(source: source, reason: rejection.description, into: &effects)
                outcomes.append(.rejected(rejection.description))
            }
        }
        return (effects, outcomes)
    }

    /// ``feed(device:position:format:topic:payload:arrival:into:)`` with a topic and payload as text.
    private mutating func feed(
        device: String, position: DecodedPosition, format: PositionTopicRouter.Format, topic: String, payload: [UInt8],
        arrival: Double, into effects: inout Effects
    ) -> PositionOutcome {
        var topic = topic
        return topic.withUTF8 { topic in
            payload.withUnsafeBytes { payload in
                feed(
                    device: device, position: position, format: format, topic: UnsafeRawBufferPointer(topic), payload: payload,
                    arrival: arrival, into: &effects)
            }
        }
    }
}
