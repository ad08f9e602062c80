import LocalBroker

/// Runs `body` against a fresh private three-node NATS cluster with `partitions` partitions
/// (docs/several-instances.md "Several instances") and stops it afterwards, also when `body` throws.
public func withLocalNATSCluster<Result>(
    partitions: Int,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (LocalNATSCluster) async throws -> Result
) async throws -> Result {
    let cluster = try LocalNATSCluster.start(partitions: partitions)
    defer { cluster.stop() }
    return try await body(cluster)
}
