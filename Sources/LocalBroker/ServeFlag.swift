/// The long flags of `fleetfence serve`, without dashes, for the programs that start it.
///
/// `ConfigurationKey.flag` in FleetFenceService is the table the service itself reads; this
/// module cannot import it (the service brings swift-configuration, SQLite and the lifecycle
/// with it, which the benchmarks and test support do not want), so the names are spelled once
/// more here, and FleetFenceServiceTests checks that the two lists agree.
public enum ServeFlag: String, CaseIterable, Sendable {
    case broker
    case username
    case passwordFile = "password-file"
    case caFile = "ca-file"
    case clientID = "client-id"
    case positions
    case prefix
    case fences
    case journal
    case debounce
    case hysteresis
    case minRadius = "min-radius"
    case maxRadius = "max-radius"
    case maxAccuracy = "max-accuracy"
    case silentConfirm = "silent-confirm"
    case statsInterval = "stats-interval"
    case logLevel = "log-level"
    case instance
    case http
    case httpTokenFile = "http-token-file"
    case tilesURL = "tiles-url"
    case homeAssistant = "homeassistant"
    case homeAssistantPrefix = "homeassistant-prefix"
    case ownTracksTransitions = "owntracks-transitions"
    case maxFuture = "max-future"
    case forgetAfter = "forget-after"
    case lateWindow = "late-window"
    case retentionDays = "retention-days"
    case traccarTopics = "traccar-topics"
}
