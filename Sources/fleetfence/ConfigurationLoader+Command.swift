import ArgumentParser
import FleetFenceService

extension ConfigurationLoader {
    /// The configuration of a subcommand: a bad one is a usage error, exit status 64 with the
    /// message, for every subcommand alike (docs/configuration.md "Configuration").
    static func forCommand(flags: [String: String], configFile: String?) async throws -> ServiceConfiguration {
        do {
            return try await load(flags: flags, configFile: configFile)
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
