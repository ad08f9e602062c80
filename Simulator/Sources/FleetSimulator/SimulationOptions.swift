import Foundation
import GeofenceEngine

/// Everything a simulation run needs; `fleetsim` fills it from flags, `fleetfence demo` in code.
public struct SimulationOptions: Sendable {
    /// `mqtt://` or `mqtts://` URL, or the nodes of a cluster separated by commas: every client
    /// connects to the first that answers and fails over in order, as the service does (docs/several-instances.md
    /// "Several instances").
    public var broker = "mqtt://127.0.0.1:1883"
    public var username: String?
    public var password: String?
    public var caFile: String?
    public var routes: [GPXRoute]
    public var fleet = FleetOptions()
    /// Simulated seconds per wall-clock second.
    public var speedup = 20.0
    /// Where truck positions go; `{device}` is replaced by the device id.
    public var topicTemplate = PositionTopicTemplate.standard
    /// The positions' format: native, Traccar's forwards, a mapping's JSON, OsmAnd or OwnTracks
    /// over HTTP (docs/trackers.md "Connecting trackers").
    public var format = PositionFormat.native
    /// The service's HTTP interface (`http://127.0.0.1:8080`), where the HTTP formats (`osmand`,
    /// `owntracks-http`) send positions; MQTT still carries the alerts.
    public var http: String?
    /// QoS of position publishes (0 or 1).
    public var qos: Int32 = 0
    /// Publishing connections: one per truck up to this many, then trucks share them.
    public var maxConnections = 50
    /// Root of the service's topics (`topics.prefix`): alerts are read from `<prefix>/alerts/#`.
    public var alertsPrefix = "fleetfence"
    /// Tours set on the service (`<prefix>/tours/<id>/set`) before the trucks start; with
    /// `verify`, their events are scored too.
    public var tours: [TourDefinition] = []
    /// Score the service's alerts; `nil`: only publish (and pass alerts to `onAlert`, if given).
    public var verify: VerifyOptions?
    /// Show a progress line on standard error (meant for terminals).
    public var progress = false
    /// Client ids are `<clientIDPrefix><n>`.
    public var clientIDPrefix = "fleetsim-"
    /// How far a position's `ts` may run ahead of the wall clock: the service's
    /// `geofence.max_future_s`. Simulated time runs `speedup` times faster than the clock, so a long
    /// run starts that much in the past (see ``Simulation``).
    public var futureLimit = GeofenceSettings().maxFutureSeconds

    public init(routes: [GPXRoute]) {
        self.routes = routes
    }
}

/// How `--verify` scores.
public struct VerifyOptions: Sendable {
    /// The fences the service runs with, as ground truth judges them.
    public var fences: [JudgeFence]
    /// The service's rules (debounce, hysteresis, ...) and the ambiguity margins.
    public var rules: GroundTruthRules
    /// An alert matches an expected one when their `at` differ by at most this, simulated seconds.
    public var tolerance = 60.0
    /// Wall seconds to wait for alerts after the last position; `nil`: long enough for silent
    /// confirmation (debounce in wall time + `silent_confirm_s` + 2 s).
    public var settle: Double?

    public init(fences: [JudgeFence], rules: GroundTruthRules = GroundTruthRules()) {
        self.fences = fences
        self.rules = rules
    }

    /// Loads `fencesFile` and applies the service's settings the way the service does
    /// (validation, radius clamp). The margins are ground truth's: 2 noise deviations and
    /// `timeMargin` seconds (default: two position intervals, at least 2 s).
    public init(
        fencesFile: String, debounceSeconds: Double = 20, hysteresisMeters: Double = 10,
        silentConfirmSeconds: Double = 20, minRadiusMeters: Double = 20, maxRadiusMeters: Double = 100_000,
        maxAccuracyMeters: Double = 100, interval: Double = 1
    ) throws(FenceFile.LoadError) {
        let settings = GeofenceSettings(
            debounceSeconds: debounceSeconds, hysteresisMeters: hysteresisMeters, minRadiusMeters: minRadiusMeters,
            maxRadiusMeters: maxRadiusMeters, maxAccuracyMeters: maxAccuracyMeters,
            silentConfirmSeconds: silentConfirmSeconds)
        let url = URL(fileURLWithPath: fencesFile)
        let fences = try FenceFile.fences(FenceFile.load(contentsOf: url), settings: settings, source: fencesFile)
        self.init(fences: fences, rules: GroundTruthRules(settings: settings, timeMargin: max(2, 2 * interval)))
    }

    func settleSeconds(speedup: Double) -> Double {
        settle ?? rules.settings.debounceSeconds / max(speedup, 0.001) + rules.settings.silentConfirmSeconds + 2
    }
}
