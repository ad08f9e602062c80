/// Which instance publishes the retained fence registry when several share a broker (docs/several-instances.md
/// "Several instances"). Every instance applies every fence `set`, so each could publish the same
/// entry; one copy per instance would have subscribers see each fence several times. The online
/// instance with the smallest name publishes, which every instance can tell from the retained
/// status topics without talking to the others. Leadership moving on publishes nothing again: the
/// entries are retained already; the new leader publishes the changes from then on.
struct RegistryLeadership {
    let instance: String?
    private var online: Set<String> = []
    /// Since the last connect: the registry is owed once this instance's own status is back, by
    /// which time the broker has sent every retained status before it.
    private var registryOwed = false
    /// A large fences file's entries were left to the leader's round (``leftToLeader()``).
    private var owedOnLeading = false

    init(instance: String?) {
        self.instance = instance
    }

    var isLeader: Bool {
        guard let instance else { return true }
        return online.contains(instance) && online.min() == instance
    }

    mutating func connected() {
        registryOwed = true
    }

    /// The registry was being published a slice at a time when another instance took it over:
    /// it is owed again, so that it goes whole if this instance publishes it again before the next
    /// connect. Leadership moving on is otherwise silent; these entries were not all sent.
    mutating func interrupted() {
        registryOwed = true
    }

    /// A fences file changed more fences than go with their changes, and this instance, not
    /// publishing the registry, left their entries to the leader's round after the file. That round
    /// may not finish (the leader stopped meanwhile): if leadership comes here, the whole registry
    /// goes.
    mutating func leftToLeader() {
        owedOnLeading = true
    }

    mutating func statusChanged(instance name: String, online isOnline: Bool) {
        if isOnline { online.insert(name) } else { online.remove(name) }
    }

    /// Whether the whole registry is to be published now: after a connect, once leadership is
    /// known (at once for an unnamed instance).
    mutating func takeDueRegistry() -> Bool {
        if owedOnLeading, isLeader {
            owedOnLeading = false
            registryOwed = false
            return true
        }
        guard registryOwed else { return false }
        if let instance {
            guard online.contains(instance) else { return false }
        }
        registryOwed = false
        return isLeader
    }
}
