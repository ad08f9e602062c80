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

    /// The file decoded, before its definitions are compared with the record of the file as last
    /// applied: at start it is read while the journal is restored.
    struct Contents: Sendable {
        var path: String
        var definitions: [FenceDefinition] = []
        var problems: [String] = []
        var listedIDs: Set<String> = []
    }

    /// Reads and decodes the file. A missing or unreadable file, or one that is not a
    /// FeatureCollection, throws; a bad feature only adds a problem.
    static func read(path: String) throws(FenceFileError) -> Contents {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw FenceFileError(path: path, reason: "cannot read: \(error.localizedDescription)")
        }
        var contents = Contents(path: path)
        do {
            for result in try FenceDecoder.decodeCollection(data) {
                switch result {
                case let .success(definition): contents.definitions.append(definition)
                case let .failure(problem):
                    contents.problems.append(problem.description)
                    if let id = problem.id { contents.listedIDs.insert(id) }
                }
            }
        } catch let .notJSON(detail) {
            // The decoder's wording is for one definition; this is the whole file.
            throw FenceFileError(path: path, reason: "not valid JSON: \(detail)")
        } catch {
            throw FenceFileError(path: path, reason: "\(error)")
        }
        contents.listedIDs.reserveCapacity(contents.listedIDs.count + contents.definitions.count)
        for definition in contents.definitions { contents.listedIDs.insert(definition.id) }
        return contents
    }

    /// Builds with `settings` each definition that differs from `applied` (the file as last applied).
    static func prepare(_ contents: Contents, settings: GeofenceSettings, applied: [String: FenceDefinition]) -> FenceFile {
        FenceFile(
            path: contents.path, settings: settings,
            entries: build(contents.definitions, settings: settings, applied: applied), problems: contents.problems,
            listedIDs: contents.listedIDs)
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
