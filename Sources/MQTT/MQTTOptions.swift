/// How an `MQTTClient` connects. Protocol is MQTT 3.1.1: with it `cleanSession = false`
/// keeps the broker-side session across disconnects without extra properties.
public struct MQTTOptions: Sendable {
    /// The broker; with ``failoverURLs``, the first to try.
    public var url: MQTTURL
    /// Further brokers of the same cluster, tried in order after ``url`` when a connection cannot
    /// be made or is lost (then from the one after the broker lost, wrapping around), so that one
    /// node's death moves the client to the next without waiting for it to come back.
    public var failoverURLs: [MQTTURL] = []
    /// Fixed client id. Required when `cleanSession` is false: the broker finds the
    /// session by it. `nil` lets libmosquitto generate a random one.
    public var clientID: String?
    /// `false`: the broker keeps subscriptions and queues QoS 1 messages while the
    /// client is away (up to its `max_queued_messages`).
    public var cleanSession: Bool
    public var username: String?
    public var password: String?
    /// Read again before every connection attempt when set (instead of ``password``), so that a
    /// rotated password file takes effect at the next reconnect without a restart. `nil` from it
    /// means "no password".
    public var passwordSource: (@Sendable () -> String?)?
    /// CA bundle for `mqtts://`. Without it the operating system's trust store is used.
    public var caFile: String?
    public var will: MQTTWill?
    /// Seconds between PINGREQs when idle; libmosquitto requires at least 5.
    public var keepAliveSeconds: Int32
    /// QoS 1 messages on the wire awaiting PUBACK at once (1...65535); more are held
    /// back by libmosquitto until earlier ones are acknowledged. libmosquitto 2.0.11 walks
    /// its whole in-flight list for every QoS 1 publish while the window has room: with
    /// 1000, 6% of the service's CPU at start-up (100,000 registry entries) went there.
    public var maxInflight: Int32
    /// Upper bound of unacknowledged QoS 1 publishes (in flight + held while the broker
    /// is unreachable). Beyond it `publish` drops and returns `.dropped(.backlogFull)`,
    /// so a long broker outage cannot exhaust memory.
    public var maxQueuedPublishes: Int
    /// First delay before reconnecting after a lost connection; doubles per failure.
    public var reconnectDelay: Duration
    /// Cap of the reconnect delay.
    public var reconnectDelayMax: Duration
    /// Every broker, in the order they are tried.
    public var urls: [MQTTURL] { [url] + failoverURLs }
    /// The network thread's name (Linux keeps 15 bytes), so that `top -H` and profilers tell a
    /// process's clients apart.
    public var threadName = "mqtt-network"

    /// Accepts a certificate issued for another host name: only for ``TLSDiagnosis``'s probe.
    var skipsHostNameCheck = false

    /// How long the network thread sleeps in poll() when nothing happens: how often an idle
    /// client checks its keep-alive. Traffic, publishes and stop requests wake it sooner. Tests
    /// lengthen it, so that a lost wake-up cannot hide in a short timeout.
    var idleWait: Duration = .milliseconds(100)

    public init(
        url: MQTTURL,
        clientID: String? = nil,
        cleanSession: Bool = true,
        username: String? = nil,
        password: String? = nil,
        caFile: String? = nil,
        will: MQTTWill? = nil,
        keepAliveSeconds: Int32 = 30,
        maxInflight: Int32 = 100,
        maxQueuedPublishes: Int = 100_000,
        reconnectDelay: Duration = .milliseconds(500),
        reconnectDelayMax: Duration = .seconds(10)
    ) {
        self.url = url
        self.clientID = clientID
        self.cleanSession = cleanSession
        self.username = username
        self.password = password
        self.caFile = caFile
        self.will = will
        self.keepAliveSeconds = keepAliveSeconds
        self.maxInflight = maxInflight
        self.maxQueuedPublishes = maxQueuedPublishes
        self.reconnectDelay = reconnectDelay
        self.reconnectDelayMax = reconnectDelayMax
    }

    /// Rejects combinations libmosquitto would refuse later with a vaguer message.
    func validate() throws(MQTTError) {
        if !cleanSession, clientID?.isEmpty ?? true {
            throw .invalidOptions("a persistent session (cleanSession = false) needs a fixed clientID")
        }
        if let clientID, clientID.utf8.count > 65_535 {
            throw .invalidOptions("clientID longer than 65535 bytes")
        }
        if password != nil || passwordSource != nil, username == nil {
            throw .invalidOptions("a password needs a username")
        }
        guard keepAliveSeconds >= 5 else {
            throw .invalidOptions("keepAliveSeconds must be at least 5, got \(keepAliveSeconds)")
        }
        guard (1...65_535).contains(maxInflight) else {
            throw .invalidOptions("maxInflight must be 1...65535, got \(maxInflight)")
        }
        guard maxQueuedPublishes >= 1 else {
            throw .invalidOptions("maxQueuedPublishes must be at least 1, got \(maxQueuedPublishes)")
        }
        guard reconnectDelay > .zero, reconnectDelayMax >= reconnectDelay else {
            throw .invalidOptions("need 0 < reconnectDelay <= reconnectDelayMax")
        }
        if let will {
            guard (0...2).contains(will.qos) else { throw .invalidOptions("will QoS must be 0, 1 or 2") }
            guard !will.topic.isEmpty else { throw .invalidOptions("will topic is empty") }
        }
        if caFile != nil, !url.tls {
            throw .invalidOptions("caFile given but the URL is not mqtts://")
        }
        // One handle carries one TLS setting.
        if let mixed = failoverURLs.first(where: { $0.tls != url.tls }) {
            throw .invalidOptions("broker URLs mix mqtt:// and mqtts:// (\(url), \(mixed))")
        }
    }
}
