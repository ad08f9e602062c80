import FleetFenceCodecs
import Foundation
import GeofenceEngine

/// `fences.file` as read: the definitions that decoded, each changed one built into a fence or
/// refused by the engine's rules, and a reason for each feature that did not decode.
struct FenceFile {
    struct Entry {
        var definition: FenceDefinition
        /// `nil` for a definition equal to the one last applied: nothing to build.
        var prepared: Result<PreparedFence, FenceError>?
    }

    /// A changed definition built, and what applying it writes encoded, before the lock is taken.
    struct PreparedFence {
        var fence: Fence
        /// The definition as journaled (`FenceDefinitionEncoding`).
        var definitionJSON: [UInt8]
        /// The retained registry entry (`FenceRegistryPayload`).
        var registryPayload: [UInt8]
    }

    var path: String
    /// What the fences were built with: only an engine with the same settings may take them as built.
    var settings: GeofenceSettings
    var entries: [Entry] = []
    var problems: [String] = []
    /// Every id the file lists: its definitions', and those of features that did not decode
    /// where the id itself could be read (such a fence, if held, stays as it was).
    var listedIDs: Set<String> = []

    /// Reads and decodes the file, and builds with `settings` each definition that differs from
    /// `applied` (the file as last applied). A missing or unreadable file, or one that is not a
    /// FeatureCollection, throws; a bad feature only adds a problem.
    static func load(path: String, settings: GeofenceSettings, applied: [String: FenceDefinition]) throws -> FenceFile {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw FenceFileError(path: path, reason: "cannot read: \(error.localizedDescription)")
        }
        var file = FenceFile(path: path, settings: settings)
        var definitions: [FenceDefinition] = []
        do {
            for result in try FenceDecoder.decodeCollection(data) {
                switch result {
                case let .success(definition): definitions.append(definition)
                case let .failure(problem):
                    file.problems.append(problem.description)
                    if let id = problem.id { file.listedIDs.insert(id) }
                }
            }
        } catch let FenceDecodingError.notJSON(detail) {
            // The decoder's wording is for one definition; this is the whole file.
            throw FenceFileError(path: path, reason: "not valid JSON: \(detail)")
        } catch {
            throw FenceFileError(path: path, reason: "\(error)")
        }
        file.listedIDs.reserveCapacity(file.listedIDs.count + definitions.count)
        for definition in definitions { file.listedIDs.insert(definition.id) }
        file.entries = build(definitions, settings: settings, applied: applied)
        return file
    }

    /// Validation, geometry and encoding were most of applying a large file under the service's
    /// lock; here they run before it is taken, on every core.
    private static func build(
        _ definitions: [FenceDefinition], settings: GeofenceSettings, applied: [String: FenceDefinition]
    ) -> [Entry] {
        definitions.concurrentMap { definition in
            Entry(
                definition: definition,
                prepared: applied[definition.id] == definition
                    ? nil
                    : Result { () throws(FenceError) in
                        let fence = try Fence(definition: definition, settings: settings)
                        return PreparedFence(
                            fence: fence, definitionJSON: FenceDefinitionEncoding.encode(definition),
                            registryPayload: FenceRegistryPayload.encode(fence))
                    })
        }
    }
}

struct FenceFileError: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "fences file \(path): \(reason)" }
}
