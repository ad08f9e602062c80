extension ServiceProcess {
    /// The settings `fleetfence serve` is started with, all as flags (see `ServeCommandLine`).
    /// `nil`: the service's built-in default.
    public struct Options: Sendable {
        /// One broker, or the nodes of a cluster separated by commas, tried in order (`--broker`).
        public var brokerURL: String
        public var fencesFile: String
        public var journalPath: String
        public var clientID: String
        public var debounce: Double?
        public var silentConfirm: Double?
        public var hysteresis: Double?
        public var minRadius: Double?
        public var maxRadius: Double?
        public var maxAccuracy: Double?
        /// `nil`: `fleetfence`.
        public var prefix: String?
        /// `nil`: `fleet/+/position`.
        public var positions: [String]?
        public var statsInterval: Double?
        public var logLevel: String?
        /// `http.listen`: a free port by default, so that services started side by side (tests,
        /// benchmarks, the demo next to a running service) never fight over 8080; `""`: off.
        public var http: String
        /// `instance.name`: the status topic becomes `<prefix>/status/<name>` (docs/several-instances.md "Several
        /// instances"). `nil`: none.
        public var instance: String?
        /// Appended as given, e.g. `["--min-radius", "30"]`.
        public var extraArguments: [String]
        /// The config file's text (see ``ServeCommandLine/configText``); `nil`: an empty file.
        public var configText: String? = nil

        public init(
            brokerURL: String, fencesFile: String, journalPath: String, clientID: String,
            debounce: Double? = nil, silentConfirm: Double? = nil, hysteresis: Double? = nil,
            minRadius: Double? = nil, maxRadius: Double? = nil, maxAccuracy: Double? = nil,
            prefix: String? = nil, positions: [String]? = nil, statsInterval: Double? = nil, logLevel: String? = nil,
            instance: String? = nil, http: String = "127.0.0.1:0", extraArguments: [String] = []
        ) {
            self.http = http
            self.brokerURL = brokerURL
            self.fencesFile = fencesFile
            self.journalPath = journalPath
            self.clientID = clientID
            self.debounce = debounce
            self.silentConfirm = silentConfirm
            self.hysteresis = hysteresis
            self.minRadius = minRadius
            self.maxRadius = maxRadius
            self.maxAccuracy = maxAccuracy
            self.prefix = prefix
            self.positions = positions
            self.statsInterval = statsInterval
            self.logLevel = logLevel
            self.instance = instance
            self.extraArguments = extraArguments
        }

        /// The root of every topic the service writes.
        public var effectivePrefix: String { prefix ?? "fleetfence" }

        /// Where the service says `online` and `offline`: `<prefix>/status`, or
        /// `<prefix>/status/<instance>`.
        public var statusTopic: String { effectivePrefix + "/status" + (instance.map { "/" + $0 } ?? "") }

        /// Every broker of `brokerURL`, which may list a cluster's nodes separated by commas.
        public var brokerURLs: [String] {
            brokerURL.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }

        /// These options as flags, with `configFile` as the service's (empty) config file.
        public func commandLine(configFile: String) -> ServeCommandLine {
            var command = ServeCommandLine(configFile: configFile)
            command[.broker] = brokerURL
            command[.fences] = fencesFile
            command[.journal] = journalPath
            command[.clientID] = clientID
            command[.prefix] = prefix
            command[.positions] = positions?.joined(separator: ",")
            let numbers: [(ServeFlag, Double?)] = [
                (.debounce, debounce), (.silentConfirm, silentConfirm), (.hysteresis, hysteresis),
                (.minRadius, minRadius), (.maxRadius, maxRadius), (.maxAccuracy, maxAccuracy),
                (.statsInterval, statsInterval),
            ]
            for case let (flag, number?) in numbers { command.set(flag, number) }
            command[.logLevel] = logLevel
            command[.instance] = instance
            command[.http] = http
            command.extraArguments = extraArguments
            command.configText = configText
            return command
        }
    }
}
