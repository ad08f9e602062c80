import Testing

/// The suites that run real processes end to end (a broker or a NATS cluster, `fleetfence serve`,
/// fleetsim --verify, kills), one after another: two of them at once on two cores make the
/// wall-clock silence of rule 2 (a few seconds in these runs) a matter of scheduling, and a NATS
/// node killed under that load was seen to route nothing more before the run ended.
@Suite("End to end, one run at a time", .serialized)
enum EndToEndSuites {}
