/// Who fences and tours apply to (docs/topics-and-payloads.md "Fences", `devices`): each distinct list of patterns is an
/// audience group, shared by every fence and tour that lists the same patterns, and a device's
/// groups are found once, by looking its id up, never by testing it against every pattern:
/// patterns without wildcards by the id itself, the others by the id's prefixes of the lengths
/// their literal prefixes have, and only those are matched. A device keeps its groups until the
/// set of groups changes (`version`), and then finds them again at its next sample.
struct Audiences: Sendable {
    /// Group 0: every device, never looked up.
    static let everyone: Int32 = 0

    private struct Group: Sendable {
        var patterns: [[UInt8]]
        /// Fences and tours holding the group.
        var users: Int
    }

    private struct Wildcard: Sendable {
        var pattern: [UInt8]
        var group: Int32
    }

    private var groups: [Group?] = [nil]
    private var freeGroups: [Int32] = []
    private var groupByPatterns: [[[UInt8]]: Int32] = [:]
    private var exact: [[UInt8]: [Int32]] = [:]
    private var byPrefix: [[UInt8]: [Wildcard]] = [:]
    /// How many wildcard patterns have a literal prefix of each length: the lengths to look up.
    private var prefixLengthCounts: [Int: Int] = [:]
    private var prefixLengths: [Int] = []
    /// Bumped whenever a group comes or goes: devices' groups found before are stale.
    private(set) var version: UInt32 = 0

    /// Whether any fence or tour is for some devices only; until then nobody's groups are looked up.
    var hasTargetedGroups: Bool { !groupByPatterns.isEmpty }

    /// The group of `patterns` (validated), taken once more. Patterns matching every id make the
    /// list everyone's.
    mutating func acquire(_ patterns: [String]) -> Int32 {
        if DevicePattern.matchesEveryone(patterns) { return Self.everyone }
        let key = Array(Set(patterns.map { Array($0.utf8) })).sorted { $0.lexicographicallyPrecedes($1) }
        if let group = groupByPatterns[key] {
            groups[Int(group)]!.users += 1
            return group
        }
        let group: Int32
        if let free = freeGroups.popLast() {
            group = free
        } else {
            group = Int32(groups.count)
            groups.append(nil)
        }
        groups[Int(group)] = Group(patterns: key, users: 1)
        groupByPatterns[key] = group
        for pattern in key {
            if DevicePattern.hasWildcard(pattern) {
                let prefix = Array(DevicePattern.literalPrefix(pattern))
                byPrefix[prefix, default: []].append(Wildcard(pattern: pattern, group: group))
                prefixLengthCounts[prefix.count, default: 0] += 1
            } else {
                exact[pattern, default: []].append(group)
            }
        }
        refreshPrefixLengths()
        version &+= 1
        return group
    }

    /// Gives `group` back; the last user's release removes it.
    mutating func release(_ group: Int32) {
        guard group != Self.everyone, var held = groups[Int(group)] else { return }
        held.users -= 1
        guard held.users == 0 else {
            groups[Int(group)] = held
            return
        }
        groups[Int(group)] = nil
        freeGroups.append(group)
        groupByPatterns[held.patterns] = nil
        for pattern in held.patterns {
            if DevicePattern.hasWildcard(pattern) {
                let prefix = Array(DevicePattern.literalPrefix(pattern))
                byPrefix[prefix]?.removeAll { $0.group == group }
                if byPrefix[prefix]?.isEmpty == true { byPrefix[prefix] = nil }
                prefixLengthCounts[prefix.count, default: 1] -= 1
                if prefixLengthCounts[prefix.count] == 0 { prefixLengthCounts[prefix.count] = nil }
            } else {
                exact[pattern]?.removeAll { $0 == group }
                if exact[pattern]?.isEmpty == true { exact[pattern] = nil }
            }
        }
        refreshPrefixLengths()
        version &+= 1
    }

    /// The groups `id` belongs to besides everyone's, sorted.
    func groups(of id: String) -> [Int32] {
        guard hasTargetedGroups else { return [] }
        let bytes = Array(id.utf8)
        var found = exact[bytes] ?? []
        for length in prefixLengths {
            guard length <= bytes.count else { break }
            guard let candidates = byPrefix[Array(bytes[..<length])] else { continue }
            for candidate in candidates where !found.contains(candidate.group) && DevicePattern.matches(candidate.pattern, bytes) {
                found.append(candidate.group)
            }
        }
        return Array(Set(found)).sorted()
    }

    /// Whether a device with `groups` (as `groups(of:)` gave them) belongs to `group`.
    @inline(__always)
    static func contains(_ groups: [Int32], _ group: Int32) -> Bool {
        group == everyone || groups.contains(group)
    }

    private mutating func refreshPrefixLengths() {
        prefixLengths = prefixLengthCounts.keys.sorted()
    }
}
