import FleetFenceCodecs
import Foundation
import GeofenceEngine

/// Reads the fences a `--verify` run scores against, with the service's own decoder: a GeoJSON
/// FeatureCollection as in the contract, or a single definition (a Feature or a plain object).
public enum FenceFile {
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        public var file: String
        public var message: String
        public var description: String { "\(file): \(message)" }
    }

    public static func load(contentsOf url: URL) throws(LoadError) -> [FenceDefinition] {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw LoadError(file: url.path, message: "cannot read: \(error.localizedDescription)")
        }
        return try load(data: data, source: url.path)
    }

    /// Unlike the service, which skips a bad fence and keeps the rest, one bad fence fails the
    /// load: scoring against a different set of fences than intended would mislead.
    public static func load(data: Data, source: String) throws(LoadError) -> [FenceDefinition] {
        let collection: [Result<FenceDefinition, FenceFeatureError>]
        do {
            collection = try FenceDecoder.decodeCollection(data)
        } catch {
            // Not a FeatureCollection: perhaps one definition.
            do {
                return [try FenceDecoder.decodeDefinition(data, idFromTopic: nil)]
            } catch let single {
                throw LoadError(file: source, message: "\(error) (nor a single fence: \(single))")
            }
        }
        var definitions: [FenceDefinition] = []
        for result in collection {
            switch result {
            case let .success(definition): definitions.append(definition)
            case let .failure(problem): throw LoadError(file: source, message: problem.description)
            }
        }
        return definitions
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
