import LocalBroker

extension Fleet {
    /// End markers for every partition up to `partitions`: `<name>-<k>` for k < P, each a device
    /// that NATS' mapping sends to partition k (docs/several-instances.md "Several instances"). Partitions for P = 1
    /// and 2 are those for 4 modulo P, so the markers of 4 cover every instance of 1, 2 and 4.
    static func partitionMarkers(_ name: String, partitions: Int, debounce: Double) -> [CrossingProbe] {
        (0..<partitions).map { partition in
            let device = (0...).lazy.map { "\(name)-\(partition)-\($0)" }
                .first { NATSPartition.of(device: $0, partitions: partitions) == partition }!
            return CrossingProbe.endMarker(device, debounce: debounce)
        }
    }

    /// As `stream(messages:framedBy:)` with several markers: their first two samples first,
    /// their confirming ones last, so each marker's alert says its instance processed its share.
    mutating func stream(messages: Int, framedBy markers: [CrossingProbe]) -> PositionStream {
        var stream = PositionStream(topics: topics, reservingMessages: messages + topics.count + 3 * markers.count)
        let markerTopics = markers.map { stream.addTopic($0.topic) }
        for (marker, topic) in zip(markers, markerTopics) {
            stream.append(topic: topic, marker.outside)
            stream.append(topic: topic, marker.entering)
        }
        while stream.count < messages { appendRound(to: &stream, topicBase: 0) }
        for (marker, topic) in zip(markers, markerTopics) { stream.append(topic: topic, marker.confirming) }
        return stream
    }
}

extension PositionStream {
    /// Messages per partition of P, by the device in each topic (`fleet/<device>/position`).
    func messagesPerPartition(_ partitions: Int) -> [Int] {
        let partitionOfTopic = topics.map { topic in
            NATSPartition.of(device: String(topic.split(separator: "/")[1]), partitions: partitions)
        }
        var counts = [Int](repeating: 0, count: partitions)
        for entry in entries { counts[partitionOfTopic[Int(entry.topic)]] += 1 }
        return counts
    }
}
