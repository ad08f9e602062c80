import LocalBroker

extension ServiceProcess {
    /// The flags given to `fleetfence serve`.
    public struct Options: Sendable {
        public var brokerURL: String
        public var fencesFile: String
        public var journalPath: String
        public var clientID: String
        public var debounce: Double
        public var silentConfirm: Double
        /// `nil`: the service's default (`fleetfence`).
        public var prefix: String?
        /// `nil`: the service's default (`fleet/+/position`).
        public var positions: [String]?
        public var statsInterval: Int
        public var logLevel: String
        /// Appended as given, e.g. `["--min-radius", "30"]`.
        public var extraArguments: [String]

        public init(
            brokerURL: String, fencesFile: String, journalPath: String, clientID: String,
            debounce: Double = 2, silentConfirm: Double = 2, prefix: String? = nil, positions: [String]? = nil,
            statsInterval: Int = 1, logLevel: String = "info", extraArguments: [String] = []
        ) {
            self.brokerURL = brokerURL
            self.fencesFile = fencesFile
            self.journalPath = journalPath
            self.clientID = clientID
            self.debounce = debounce
            self.silentConfirm = silentConfirm
            self.prefix = prefix
            self.positions = positions
            self.statsInterval = statsInterval
            self.logLevel = logLevel
            self.extraArguments = extraArguments
        }

        /// The root of every topic the service writes.
        public var effectivePrefix: String { prefix ?? "fleetfence" }

        /// These options as flags, with `configFile` as the service's (empty) config file.
        public func commandLine(configFile: String) -> ServeCommandLine {
            var command = ServeCommandLine(configFile: configFile)
            command[.broker] = brokerURL
            command[.fences] = fencesFile
            command[.journal] = journalPath
            command[.clientID] = clientID
            command.set(.debounce, debounce)
            command.set(.silentConfirm, silentConfirm)
            command[.statsInterval] = String(statsInterval)
            command[.logLevel] = logLevel
            command[.prefix] = prefix
            command[.positions] = positions?.joined(separator: ",")
            command.extraArguments = extraArguments
            return command
        }
    }
}
