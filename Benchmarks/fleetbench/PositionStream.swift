/// Messages ready to publish: every payload formatted up front into one buffer, so the publisher
/// does nothing but publish.
struct PositionStream: Sendable {
    struct Entry: Sendable {
        var topic: Int32
        var start: Int32
        var length: Int32
    }

    private(set) var topics: [String]
    private(set) var bytes: [UInt8] = []
    private(set) var entries: [Entry] = []

    init(topics: [String] = [], reservingMessages messages: Int = 0) {
        self.topics = topics
        bytes.reserveCapacity(messages * 104)
        entries.reserveCapacity(messages)
    }

    var count: Int { entries.count }

    var averagePayloadBytes: Double {
        entries.isEmpty ? 0 : Double(bytes.count) / Double(entries.count)
    }

    /// Registers a topic and returns its number.
    mutating func addTopic(_ topic: String) -> Int32 {
        topics.append(topic)
        return Int32(topics.count - 1)
    }

    /// Appends a message; returns its index in the stream.
    @discardableResult
    mutating func append(topic: Int32, _ fix: PositionFix) -> Int {
        let start = bytes.count
        fix.appendJSON(to: &bytes)
        entries.append(Entry(topic: topic, start: Int32(start), length: Int32(bytes.count - start)))
        return entries.count - 1
    }

    /// Calls `body` with each message in order, the payload borrowed from the buffer.
    func withMessages(_ body: (_ index: Int, _ topic: String, _ payload: UnsafeRawBufferPointer) -> Bool) {
        bytes.withUnsafeBytes { raw in
            for index in entries.indices {
                let entry = entries[index]
                let payload = UnsafeRawBufferPointer(rebasing: raw[Int(entry.start)..<Int(entry.start + entry.length)])
                if !body(index, topics[Int(entry.topic)], payload) { return }
            }
        }
    }
}

extension PositionStream {
    /// The same messages on other topics.
    func retargeted(_ transform: (String) -> String) -> PositionStream {
        var copy = self
        copy.topics = topics.map(transform)
        return copy
    }

    /// Appends message `index` of `other`, whose topic table must begin with this stream's.
    mutating func appendMessage(_ index: Int, of other: PositionStream) {
        let entry = other.entries[index]
        let start = bytes.count
        bytes.append(contentsOf: other.bytes[Int(entry.start)..<Int(entry.start + entry.length)])
        entries.append(Entry(topic: entry.topic, start: Int32(start), length: entry.length))
    }
}
