import Testing

/// The suites that run several instances on a NATS cluster end to end, one after another: each
/// starts three nodes, instances and fleetsim, and two of them at once on two cores would make
/// the wall-clock silence of rule 2 (a few seconds in these runs) a matter of scheduling.
@Suite("Several instances on a NATS cluster, end to end", .serialized)
enum ClusterSuites {}
