import FleetFenceCodecs
import Foundation
import GeofenceEngine

/// `fences.file` as read: the definitions that decoded, and a reason for each one that did not.
struct FenceFile {
    var path: String
    var definitions: [FenceDefinition] = []
    var problems: [String] = []
    /// Ids of features that did not decode, where the id itself could be read.
    var unreadableIDs: Set<String> = []

    /// Reads and decodes the file. A missing or unreadable file, or one that is not a
    /// FeatureCollection, throws; a bad feature only adds a problem.
    static func load(path: String) throws -> FenceFile {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw FenceFileError(path: path, reason: "cannot read: \(error.localizedDescription)")
        }
        var file = FenceFile(path: path)
        do {
            for result in try FenceDecoder.decodeCollection(data) {
                switch result {
                case let .success(definition): file.definitions.append(definition)
                case let .failure(problem):
                    file.problems.append(problem.description)
                    if let id = problem.id { file.unreadableIDs.insert(id) }
                }
            }
        } catch {
            throw FenceFileError(path: path, reason: "\(error)")
        }
        return file
    }
}

struct FenceFileError: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "fences file \(path): \(reason)" }
}

/// Fence ids become topic levels, so they must be usable as one.
enum FenceIDRules {
    struct Invalid: Error, CustomStringConvertible {
        var id: String
        var description: String { "fence id \"\(id)\" must be a single topic level: no '/', '+', '#' or NUL" }
    }

    static func validate(_ id: String) throws {
        if id.contains(where: { $0 == "/" || $0 == "+" || $0 == "#" || $0 == "\0" }) { throw Invalid(id: id) }
    }
}
