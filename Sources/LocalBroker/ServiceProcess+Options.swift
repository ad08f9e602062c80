import FleetFenceSettings

extension ServiceProcess {
    /// The settings `fleetfence serve` is started with, all as flags (see `ServeCommandLine`): any
    /// key of the table, by key. A key not set is the service's built-in default, except
    /// `http.listen`: a free port unless set, so that services started side by side (tests,
    /// benchmarks, the demo next to a running service) never fight over 8080; `""` turns it off.
    public struct Options: Sendable {
        public var settings: [ConfigurationKey: String]
        /// Appended as given, after the settings' flags.
        public var extraArguments: [String]
        /// The config file's text (see ``ServeCommandLine/configText``); `nil`: an empty file.
        public var configText: String?

        /// `settings` should name at least the broker, the fences file, the journal and the client
        /// id: the service's defaults for them are the working directory's files and this host's
        /// name, which a program starting its own service must not share.
        public init(_ settings: [ConfigurationKey: String], extraArguments: [String] = [], configText: String? = nil) {
            self.settings = [.httpListen: "127.0.0.1:0"].merging(settings) { _, given in given }
            self.extraArguments = extraArguments
            self.configText = configText
        }

        /// A setting; `nil` leaves it to the service's default.
        public subscript(key: ConfigurationKey) -> String? {
            get { settings[key] }
            set { settings[key] = newValue }
        }

        /// Sets a number as people write it (`20`, not `20.0`).
        public mutating func set(_ key: ConfigurationKey, _ number: Double) {
            settings[key] = ConfigurationKey.format(number)
        }

        /// What the service will use for `key`: the setting, or the built-in default (the child
        /// sees no `FLEETFENCE_*` variables and, unless `configText` says otherwise, an empty file).
        public func value(_ key: ConfigurationKey) -> String? {
            settings[key] ?? key.defaultValue
        }

        /// The root of every topic the service writes.
        public var effectivePrefix: String { value(.prefix) ?? "" }

        /// Where the service says `online` and `offline`: `<prefix>/status`, or
        /// `<prefix>/status/<instance>` (docs/several-instances.md "Several instances").
        public var statusTopic: String {
            let instance = settings[.instanceName] ?? ""
            return effectivePrefix + "/status" + (instance.isEmpty ? "" : "/" + instance)
        }

        /// These options as flags, with `configFile` as the service's config file.
        public func commandLine(configFile: String) -> ServeCommandLine {
            var command = ServeCommandLine(configFile: configFile, settings: settings)
            command.extraArguments = extraArguments
            command.configText = configText
            return command
        }
    }
}
