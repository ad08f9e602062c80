/// Maps an incoming topic to what it carries. Device ids come from the topic: the level of the
/// filter's first `+`; for OwnTracks (`owntracks/<user>/<device>`) they are `<user>-<device>`.
struct PositionTopicRouter {
    enum Route: Sendable, Hashable {
        case position(device: String, format: Format)
        case fenceSet(id: String)
        case unrelated
    }

    enum Format: Sendable, Hashable {
        case native
        case ownTracks
    }

    private struct Filter {
        let levels: [Substring]
        let format: Format
    }

    private let filters: [Filter]
    private let layout: TopicLayout
    /// Topics repeat per device: caching the route skips splitting and matching for every message.
    private var cache: [String: Route] = [:]
    private static let cacheLimit = 2_000_000

    init(positionFilters: [String], layout: TopicLayout) {
        self.filters = positionFilters.map { filter in
            let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
            return Filter(levels: levels, format: levels.first == "owntracks" ? .ownTracks : .native)
        }
        self.layout = layout
    }

    mutating func route(_ topic: String) -> Route {
        if let cached = cache[topic] { return cached }
        let route = resolve(topic)
        if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
        cache[topic] = route
        return route
    }

    private func resolve(_ topic: String) -> Route {
        if let id = layout.fenceID(fromSetTopic: topic) { return .fenceSet(id: id) }
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        for filter in filters {
            guard let wildcards = Self.match(filter.levels, levels) else { continue }
            switch filter.format {
            case .native:
                guard let device = wildcards.first, !device.isEmpty else { continue }
                return .position(device: String(device), format: .native)
            case .ownTracks:
                guard wildcards.count >= 2, !wildcards[0].isEmpty, !wildcards[1].isEmpty else { continue }
                return .position(device: "\(wildcards[0])-\(wildcards[1])", format: .ownTracks)
            }
        }
        return .unrelated
    }

    /// The levels the filter's `+` wildcards matched, or nil when the topic does not match.
    private static func match(_ filter: [Substring], _ topic: [Substring]) -> [Substring]? {
        var wildcards: [Substring] = []
        for (position, level) in filter.enumerated() {
            if level == "#" { return wildcards }
            guard position < topic.count else { return nil }
            if level == "+" {
                wildcards.append(topic[position])
            } else if level != topic[position] {
                return nil
            }
        }
        return filter.count == topic.count ? wildcards : nil
    }
}
