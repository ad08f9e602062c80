/// Where committed steps go: the broker's topics, the read side the HTTP interface serves, the
/// webhooks' queues. The journal's writer tells each output of every batch of steps once it is
/// committed, in the order the core made them, on the writer's thread: an output must return
/// quickly (queue, hand off) and never call back into the core, which never waits for it.
protocol Output: Sendable {
    func committed(_ steps: [Effects])
}

extension ReadModel: Output {}
