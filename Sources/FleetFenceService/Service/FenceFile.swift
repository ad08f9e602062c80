import FleetFenceCodecs
import Foundation
import GeofenceEngine

/// `fences.file` as read, and each definition that changed since the file was last applied built
/// into a fence or refused by the engine's rules.
struct FenceFile {
    /// The file decoded, before its definitions are compared with the record of the file as last
    /// applied: at start it is read while the journal is restored.
    typealias Contents = FenceFileReader.Contents

    /// A changed definition built, and what applying it writes encoded, before the lock is taken.
    struct PreparedFence {
        var fence: Fence
        /// The definition as journaled (`FenceDefinitionEncoding`).
        var definitionJSON: [UInt8]
        /// The retained registry entry (`FenceRegistryPayload`).
        var registryPayload: [UInt8]
    }

    var contents: Contents
    /// One per definition, in order: `nil` where it equals the one last applied (nothing to do).
    var prepared: [Result<PreparedFence, FenceError>?]

    /// Reads and decodes the file. A missing or unreadable file, or one that is not a
    /// FeatureCollection, throws; a bad feature only adds a problem.
    static func read(path: String) throws(FenceFileError) -> Contents {
        try FenceFileReader.read(path: path)
    }

    /// Builds each definition that differs from `applied` (the record of the file as last applied)
    /// with `settings` (the engine's). Validation, geometry and encoding were most of applying a
    /// large file under the service's lock; here they run before it is taken, on every core.
    static func prepare(_ contents: Contents, settings: GeofenceSettings, applied: [ExactID: FenceDefinition]) -> FenceFile {
        let prepared = contents.definitions.concurrentMap { definition -> Result<PreparedFence, FenceError>? in
            if applied[ExactID(definition.id)] == definition { return nil }
            return Result { () throws(FenceError) in
                let fence = try Fence(definition: definition, settings: settings)
                return PreparedFence(
                    fence: fence, definitionJSON: FenceDefinitionEncoding.encode(definition),
                    registryPayload: FenceRegistryPayload.encode(fence))
            }
        }
        return FenceFile(contents: contents, prepared: prepared)
    }
}
