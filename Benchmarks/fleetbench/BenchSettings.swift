/// What a run measures and how hard, from the command line.
struct BenchSettings: Sendable {
    enum Phase: String, CaseIterable, Sendable {
        case ceiling, throughput, latency, scale, startup
        /// Alone, and never by default: minutes to hours (`Scripts/soak`, docs/performance.md "Soak").
        case soak
    }

    var phases: Set<Phase> = Set(Phase.allCases).subtracting([.soak])
    var q0Messages = 300_000
    var q1Messages = 100_000
    var devices = 10_000
    var fences = 10_000
    var debounce = 2.0
    var latencySeconds = 8.0
    /// Used when the ceiling is not measured in this run.
    var latencyRate = 30_000.0
    var probes = 300
    var scaleSteps = [100_000, 1_000_000]
    var scaleJitteredReports = 0
    var startupFences = 100_000
    var startupLimit = 60.0
    /// Longest wait for one service measurement (an end marker's alert, the 10k-fence start-up).
    var phaseLimit = 120.0
    var seed: UInt64 = 42
    var serviceExecutable: String?
    var wrapper: [String] = []
    var keepFiles = false
    /// mosquitto.conf lines added to the broker's (e.g. `set_tcp_nodelay true`).
    var brokerConfig: [String] = []
    /// A map on the stream, a scraper and a device poller beside every service (`HTTPLoad`).
    var httpLoad = false
    /// Home Assistant discovery on in every service.
    var homeAssistant = false
    var lateWindow: Double?
    /// `--cluster`: one instance on mosquitto beside P instances on NATS, instead of the phases.
    var cluster = false
    var clusterMessages = 100_000
    var clusterQ1Messages = 10_000
    var clusterPartitions = [1, 2, 4]
    var soak = SoakSettings()

    var needsService: Bool {
        !phases.isDisjoint(with: [.throughput, .latency, .scale])
    }
}
