import Dispatch
import FleetFenceCodecs
import Foundation
import GeofenceEngine
import Synchronization

/// `fences.file` as read: the definitions that decoded, each changed one built into a fence or
/// refused by the engine's rules, and a reason for each feature that did not decode.
struct FenceFile {
    struct Entry {
        var definition: FenceDefinition
        /// `nil` for a definition equal to the one last applied: nothing to build.
        var built: Result<Fence, FenceError>?
        /// What applying a built fence writes, encoded here rather than under the lock: the
        /// definition as journaled, and the registry entry.
        var encoded: [UInt8] = []
        var registryPayload: [UInt8] = []
    }

    var path: String
    var entries: [Entry] = []
    var problems: [String] = []
    /// Ids of features that did not decode, where the id itself could be read.
    var unreadableIDs: Set<String> = []

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
        var file = FenceFile(path: path)
        var definitions: [FenceDefinition] = []
        do {
            for result in try FenceDecoder.decodeCollection(data) {
                switch result {
                case let .success(definition): definitions.append(definition)
                case let .failure(problem):
                    file.problems.append(problem.description)
                    if let id = problem.id { file.unreadableIDs.insert(id) }
                }
            }
        } catch let FenceDecodingError.notJSON(detail) {
            // The decoder's wording is for one definition; this is the whole file.
            throw FenceFileError(path: path, reason: "not valid JSON: \(detail)")
        } catch {
            throw FenceFileError(path: path, reason: "\(error)")
        }
        file.entries = build(definitions, settings: settings, applied: applied)
        return file
    }

    /// Validation, geometry and encoding were most of applying a large file under the service's
    /// lock; here they run before it is taken, on every core.
    private static func build(
        _ definitions: [FenceDefinition], settings: GeofenceSettings, applied: [String: FenceDefinition]
    ) -> [Entry] {
        let chunkSize = 2_000
        let chunks = (definitions.count + chunkSize - 1) / chunkSize
        let built = Mutex([[Entry]](repeating: [], count: chunks))
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let range = chunk * chunkSize..<min(definitions.count, (chunk + 1) * chunkSize)
            let entries = definitions[range].map { definition in
                guard applied[definition.id] != definition else { return Entry(definition: definition, built: nil) }
                let built = Result { () throws(FenceError) in try Fence(definition: definition, settings: settings) }
                guard case let .success(fence) = built else { return Entry(definition: definition, built: built) }
                return Entry(
                    definition: definition, built: built, encoded: FenceDefinitionEncoding.encode(definition),
                    registryPayload: FenceRegistryPayload.encode(fence))
            }
            built.withLock { $0[chunk] = entries }
        }
        return built.withLock { $0.flatMap { $0 } }
    }
}

struct FenceFileError: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "fences file \(path): \(reason)" }
}
