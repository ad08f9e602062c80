import Foundation
import GeofenceEngine

/// A fences file (docs/topics-and-payloads.md "Fences") read into definitions, by the rules the service and the
/// simulator share: a file that cannot be read, or is not a FeatureCollection, fails as a whole;
/// a feature that does not decode becomes a problem of its own and the others are kept. What a
/// problem means (skip the feature, or refuse the run) is the caller's choice.
public enum FenceFileReader {
    /// What this build makes of a file: part of the digest the journal keeps of the file as last
    /// applied (docs/topics-and-payloads.md "Fences"), so that a build that reads or encodes a
    /// file otherwise decodes it again instead of trusting a record another build made. Raise it
    /// whenever a file may decode to other definitions, problems or encodings (a test holds a
    /// file of every kind of feature to its checksum and says so when that changes).
    public static let readingVersion = 1

    public struct Contents: Sendable {
        public var path: String
        public var definitions: [FenceDefinition] = []
        /// A reason for each feature that did not decode.
        public var problems: [String] = []
        /// Every id the file lists: its definitions', and those of features that did not decode
        /// where the id itself could be read (such a fence, if held, stays as it was).
        /// By the id's bytes: the engine tells fences apart so (docs/topics-and-payloads.md "Fences").
        public var listedIDs: Set<ExactID> = []

        public init(path: String) {
            self.path = path
        }
    }

    /// `allowingSingleDefinition`: a file that is one definition (a Feature or a plain object,
    /// as a `set` payload) reads as a file of that one fence.
    public static func read(path: String, allowingSingleDefinition: Bool = false) throws(FenceFileError) -> Contents {
        try read(bytes(path: path), path: path, allowingSingleDefinition: allowingSingleDefinition)
    }

    /// The file's bytes, undecoded.
    public static func bytes(path: String) throws(FenceFileError) -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw FenceFileError(path: path, reason: "cannot read: \(error.localizedDescription)")
        }
    }

    /// The same for a file's bytes; `path` names it in errors.
    public static func read(_ data: Data, path: String, allowingSingleDefinition: Bool = false) throws(FenceFileError) -> Contents {
        var contents = Contents(path: path)
        let features: [Result<FenceDefinition, FenceFeatureError>]
        do {
            features = try FenceDecoder.decodeCollection(data)
        } catch let .notJSON(detail) {
            // The decoder's wording is for one definition; this is the whole file.
            throw FenceFileError(path: path, reason: "not valid JSON: \(detail)")
        } catch {
            guard allowingSingleDefinition else { throw FenceFileError(path: path, reason: "\(error)") }
            do {
                let definition = try FenceDecoder.decodeDefinition(data, idFromTopic: nil)
                contents.definitions = [definition]
                contents.listedIDs = [ExactID(definition.id)]
                return contents
            } catch let single {
                throw FenceFileError(path: path, reason: "\(error) (nor a single fence: \(single))")
            }
        }
        for result in features {
            switch result {
            case let .success(definition): contents.definitions.append(definition)
            case let .failure(problem):
                contents.problems.append(problem.description)
                if let id = problem.id { contents.listedIDs.insert(ExactID(id)) }
            }
        }
        contents.listedIDs.reserveCapacity(contents.listedIDs.count + contents.definitions.count)
        for definition in contents.definitions { contents.listedIDs.insert(ExactID(definition.id)) }
        return contents
    }
}
