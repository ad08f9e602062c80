/// Maps an incoming topic to what it carries. Device ids come from the topic: the level of the
/// filter's first `+`; for OwnTracks (`owntracks/<user>/<device>`) they are `<user>-<device>`;
/// Traccar's and mapped topics name no device of their own (docs/trackers.md "Connecting trackers").
struct PositionTopicRouter {
    enum Route: Sendable, Hashable {
        case position(device: String, format: Format)
        case fenceSet(id: String)
        /// `<prefix>/tours/<id>/set` (docs/rules.md "Tours").
        case tourSet(id: String)
        /// `<prefix>/devices/<id>/forget`: `fleetfence devices forget`.
        case deviceForget(id: String)
        /// `<prefix>/status/<instance>`: another instance (or this one) saying whether it is up.
        case instanceStatus(name: String)
        /// A Traccar or mapped position: the device is in the payload.
        case payloadDevice(format: Format)
        /// A position topic whose device level is empty (`fleet//position`): rejected, not ignored.
        case noDevice
        case unrelated
    }

    enum Format: Sendable, Hashable {
        case native
        case ownTracks
        /// `inputs.traccar_topics`: Traccar's forwarded positions.
        case traccar
        /// `inputs.mappings[index]`.
        case mapping(Int)
        /// From the HTTP interface: no topic, answered to the caller.
        case http
    }

    /// A filter level: literal bytes, `+` or `#`.
    private enum Level {
        case literal([UInt8])
        case single
        case rest
    }

    private struct Filter {
        let levels: [Level]
        let format: Format
    }

    /// The byte ranges of the first two `+` levels a topic matched (a device id uses at most two):
    /// a value, where an array cost an allocation per message.
    private struct Wildcards {
        private(set) var first: Range<Int>?
        private(set) var second: Range<Int>?

        mutating func append(_ range: Range<Int>) {
            if first == nil { first = range } else if second == nil { second = range }
        }
    }

    private let filters: [Filter]
    /// `<prefix>/fences/`, the head of a fence definition topic; the same for tours and forgets.
    private let fenceSetHead: [UInt8]
    private let tourSetHead: [UInt8]
    private let forgetHead: [UInt8]
    /// `<prefix>/status/`, followed only when instances are named.
    private let statusHead: [UInt8]?

    init(positionFilters: [String], traccarFilters: [String] = [], mappingFilters: [String] = [], layout: TopicLayout) {
        func parsed(_ filter: String, _ format: Format) -> Filter {
            let levels = filter.split(separator: "/", omittingEmptySubsequences: false).map { level -> Level in
                switch level {
                case "+": .single
                case "#": .rest
                default: .literal(Array(level.utf8))
                }
            }
            return Filter(levels: levels, format: format)
        }
        // No topic matches two of them: the configuration refuses overlapping inputs.
        self.filters = positionFilters.map { parsed($0, $0.hasPrefix("owntracks/") ? .ownTracks : .native) }
            + traccarFilters.map { parsed($0, .traccar) }
            + mappingFilters.enumerated().map { parsed($1, .mapping($0)) }
        fenceSetHead = Array("\(layout.prefix)/fences/".utf8)
        tourSetHead = Array("\(layout.prefix)/tours/".utf8)
        forgetHead = Array("\(layout.prefix)/devices/".utf8)
        statusHead = layout.instance == nil ? nil : Array("\(layout.prefix)/status/".utf8)
    }

    /// Matched on the topic's bytes, without splitting it or caching: a cache of every topic
    /// seen cost more memory per device than the engine's own state.
    func route(_ topic: String) -> Route {
        var topic = topic
        return topic.withUTF8 { route(UnsafeRawBufferPointer($0)) }
    }

    func route(_ topic: UnsafeRawBufferPointer) -> Route {
        if let id = Self.level(topic, between: fenceSetHead, and: Self.setTail) { return .fenceSet(id: id) }
        if let id = Self.level(topic, between: tourSetHead, and: Self.setTail) { return .tourSet(id: id) }
        if let id = Self.level(topic, between: forgetHead, and: Self.forgetTail) { return .deviceForget(id: id) }
        if let statusHead, topic.count > statusHead.count, topic.starts(with: statusHead),
            !topic[statusHead.count...].contains(UInt8(ascii: "/"))
        {
            return .instanceStatus(name: Self.string(topic, statusHead.count..<topic.count))
        }
        var emptyDevice = false
        for filter in filters {
            guard let wildcards = Self.match(filter.levels, topic) else { continue }
            switch filter.format {
            case .native:
                guard let device = wildcards.first else { continue }
                guard !device.isEmpty else {
                    emptyDevice = true
                    continue
                }
                return .position(device: Self.string(topic, device), format: .native)
            case .ownTracks:
                // A filter with fewer than two `+` (`owntracks/+/#`) names no device: not ours.
                guard let user = wildcards.first, let device = wildcards.second else { continue }
                guard !user.isEmpty, !device.isEmpty else {
                    emptyDevice = true
                    continue
                }
                return .position(
                    device: "\(Self.string(topic, user))-\(Self.string(topic, device))", format: .ownTracks)
            case .traccar, .mapping:
                return .payloadDevice(format: filter.format)
            case .http:
                continue
            }
        }
        return emptyDevice ? .noDevice : .unrelated
    }

    private static let setTail = Array("/set".utf8)
    private static let forgetTail = Array("/forget".utf8)

    /// The one level between `head` and `tail` (`<prefix>/fences/<id>/set`), or nil. An empty id
    /// (`fences//set`) is routed too, to be answered rather than ignored.
    private static func level(_ topic: UnsafeRawBufferPointer, between head: [UInt8], and tail: [UInt8]) -> String? {
        guard topic.count >= head.count + tail.count, topic.starts(with: head), topic.suffix(tail.count).elementsEqual(tail)
        else { return nil }
        let id = head.count..<(topic.count - tail.count)
        guard !topic[id].contains(UInt8(ascii: "/")) else { return nil }
        return string(topic, id)
    }

    /// The byte ranges the filter's `+` wildcards matched, or nil when the topic does not match.
    private static func match(_ filter: [Level], _ topic: UnsafeRawBufferPointer) -> Wildcards? {
        var wildcards = Wildcards()
        var start = 0
        for (position, level) in filter.enumerated() {
            guard start <= topic.count else { return nil }
            let end = topic[start...].firstIndex(of: UInt8(ascii: "/")) ?? topic.count
            switch level {
            case .single: wildcards.append(start..<end)
            case let .literal(bytes): guard topic[start..<end].elementsEqual(bytes) else { return nil }
            case .rest: return wildcards
            }
            start = end + 1
            // The topic ended: it matches if the filter ends here too, or goes on with a final `#`,
            // which also matches its parent level (MQTT 3.1.1, 4.7.1.2: `a/#` matches `a`).
            if end == topic.count {
                if position == filter.count - 1 { return wildcards }
                if position == filter.count - 2, case .rest = filter[position + 1] { return wildcards }
                return nil
            }
        }
        return nil
    }

    private static func string(_ topic: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        String(decoding: topic[range], as: UTF8.self)
    }
}
