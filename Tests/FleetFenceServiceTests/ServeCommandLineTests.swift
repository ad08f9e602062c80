import FleetFenceTesting
import Testing

/// How the programs that start `fleetfence serve` (demo, benchmarks, tests) turn their settings
/// into its command line.
@Suite struct ServeCommandLineTests {
    @Test func aCommandLineGivesEverySettingAsItsFlagAndAnEmptyConfigFile() {
        var options = ServiceProcess.Options([.brokerURL: "mqtt://127.0.0.1:1"], extraArguments: ["--min-radius", "30"])
        options.set(.debounce, 2)
        options.set(.hysteresis, 2.5)
        let command = options.commandLine(configFile: "/tmp/x.yaml")
        // In the table's order; a free HTTP port unless the launcher says otherwise.
        #expect(command.arguments == [
            "serve", "--config", "/tmp/x.yaml", "--broker", "mqtt://127.0.0.1:1", "--debounce", "2",
            "--hysteresis", "2.5", "--http", "127.0.0.1:0", "--min-radius", "30",
        ])
        #expect(command.flags == ["broker.url": "mqtt://127.0.0.1:1", "geofence.debounce_s": "2",
            "geofence.hysteresis_m": "2.5", "http.listen": "127.0.0.1:0"])
        #expect(!command.environment.keys.contains { $0.hasPrefix("FLEETFENCE_") })
        #expect(command.configFileText.contains("{}"))
    }

    @Test func theStatusTopicFollowsPrefixAndInstance() {
        var options = ServiceProcess.Options([:])
        #expect(options.statusTopic == "fleetfence/status")
        options[.prefix] = "acme/geo"
        options[.instanceName] = "east"
        #expect(options.statusTopic == "acme/geo/status/east")
    }

    /// `serve --help` is made from the table: every key's flag with its value name, the key, its
    /// variable and its default.
    @Test func serveHelpShowsEveryKeysFlagVariableAndDefault() async throws {
        let result = try await runProcess(try ServiceProcess.locateExecutable(), ["serve", "--help"], timeout: .seconds(20))
        #expect(result.status == 0, "\(result.errorOutput)")
        // Help is wrapped at the terminal's width: compare with single spaces.
        let help = (result.output + result.errorOutput).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for key in ConfigurationKey.allCases {
            #expect(help.contains("--\(key.flag) <\(key.valueName)>"), "\(key.name)")
            #expect(help.contains("(key \(key.name), env \(key.environmentVariable), default \(key.defaultDescription))"), "\(key.name)")
        }
    }

    /// A flag's value reaches the loader by its key, and a bad one is refused naming the flag.
    @Test func aBadFlagIsRefusedNamingIt() async throws {
        try await withTemporaryDirectory { directory in
            let command = ServeCommandLine(configFile: directory + "/empty.yaml", settings: [.debounce: "soon"])
            try command.writeConfigFile()
            let result = try await runProcess(
                try ServiceProcess.locateExecutable(), command.arguments, directory: directory, environment: command.environment,
                timeout: .seconds(20))
            #expect(result.status != 0)
            #expect(result.errorOutput.contains("flag --debounce"), "\(result.errorOutput)")
        }
    }
}
