import Crypto
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
    }

    var contents: Contents
    /// One per definition, in order: `nil` where it equals the one last applied (nothing to do).
    var prepared: [Result<PreparedFence, FenceError>?]
    /// The file's SHA-256 after the reader's version (`FencesFileDigest`), journaled with its
    /// record if the file applies clean.
    var digest: String

    /// The file as read: its digest, and its contents unless the file is byte for byte the one
    /// last applied, whose record the journal vouches for with `lastDigest`.
    struct Read: Sendable {
        var digest: String
        /// nil: unchanged, nothing to decode or compare.
        var contents: Contents?
    }

    /// Reads the file and decodes it unless its digest is `lastDigest`. A missing or unreadable
    /// file, or one that is not a FeatureCollection, throws; a bad feature only adds a problem.
    /// Hashing a file of 100,000 fences (19 MB) takes about 0.05 s; decoding and comparing it took
    /// about 0.4 s of CPU, on the cores a restart restores the journal with, and a SIGHUP on the
    /// unchanged file 0.55-0.76 s, now 0.02-0.05 s.
    static func read(path: String, lastDigest: String?) throws(FenceFileError) -> Read {
        let bytes = try FenceFileReader.bytes(path: path)
        let digest = "\(FenceFileReader.readingVersion):" + Array(SHA256.hash(data: bytes)).lowercaseHex
        if digest == lastDigest { return Read(digest: digest, contents: nil) }
        return Read(digest: digest, contents: try FenceFileReader.read(bytes, path: path))
    }

    /// Builds each definition that differs from `applied` (the record of the file as last applied)
    /// with `settings` (the engine's). Validation, geometry and encoding were most of applying a
    /// large file under the service's lock; here they run before it is taken, on every core.
    static func prepare(
        _ contents: Contents, digest: String, settings: GeofenceSettings, applied: [ExactID: FenceDefinition]
    ) -> FenceFile {
        let prepared = contents.definitions.concurrentMap { definition -> Result<PreparedFence, FenceError>? in
            if applied[ExactID(definition.id)] == definition { return nil }
            return Result { () throws(FenceError) in
                let fence = try Fence(definition: definition, settings: settings)
                return PreparedFence(fence: fence, definitionJSON: FenceDefinitionEncoding.encode(definition))
            }
        }
        return FenceFile(contents: contents, prepared: prepared, digest: digest)
    }
}
