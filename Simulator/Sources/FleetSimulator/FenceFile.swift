import FleetFenceCodecs
import Foundation
import GeofenceEngine

/// Reads the fences a `--verify` run scores against with the service's own reader
/// (`FenceFileReader`): a GeoJSON FeatureCollection as in docs/topics-and-payloads.md "Fences", or for convenience a
/// single definition (a Feature or a plain object).
public enum FenceFile {
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        public var file: String
        public var message: String
        public var description: String { "\(file): \(message)" }
    }

    public static func load(contentsOf url: URL) throws(LoadError) -> [FenceDefinition] {
        try definitions { () throws(FenceFileError) in
            try FenceFileReader.read(path: url.path, allowingSingleDefinition: true)
        }
    }

    public static func load(data: Data, source: String) throws(LoadError) -> [FenceDefinition] {
        try definitions { () throws(FenceFileError) in
            try FenceFileReader.read(data, path: source, allowingSingleDefinition: true)
        }
    }

    /// Unlike the service, which skips a bad fence and keeps the rest, one bad fence fails the
    /// run, with the reader's reason: scoring against other fences than intended would mislead.
    private static func definitions(_ read: () throws(FenceFileError) -> FenceFileReader.Contents) throws(LoadError) -> [FenceDefinition] {
        let contents: FenceFileReader.Contents
        do {
            contents = try read()
        } catch {
            throw LoadError(file: error.path, message: error.reason)
        }
        if let problem = contents.problems.first { throw LoadError(file: contents.path, message: problem) }
        return contents.definitions
    }

    /// The fences as ground truth judges them (validated, radius clamped).
    public static func fences(_ definitions: [FenceDefinition], settings: GeofenceSettings, source: String) throws(LoadError) -> [JudgeFence] {
        var fences: [JudgeFence] = []
        for definition in definitions {
            do {
                fences.append(try JudgeFence(definition: definition, settings: settings))
            } catch {
                throw LoadError(file: source, message: "fence \(definition.id): \(error)")
            }
        }
        return fences
    }
}
