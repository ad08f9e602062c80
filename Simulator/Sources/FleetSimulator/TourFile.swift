import FleetFenceCodecs
import Foundation
import GeofenceEngine

/// Reads the tours `--tours FILE` sets on the service before the trucks start: a JSON array of
/// tour definitions as docs/rules.md "Tours" shows them (or a single one), each read by the service's own
/// decoder and checked by the engine's rules, so that a tour the service would refuse fails the
/// run here instead of scoring against a tour the service does not hold.
public enum TourFile {
    public static func load(contentsOf url: URL) throws(FenceFile.LoadError) -> [TourDefinition] {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw FenceFile.LoadError(file: url.path, message: "cannot be read: \(error.localizedDescription)")
        }
        return try load(data: data, source: url.path)
    }

    public static func load(data: Data, source: String) throws(FenceFile.LoadError) -> [TourDefinition] {
        let values: [JSONValue]
        switch JSONParser.parse([UInt8](data)) {
        case let .success(.array(items)): values = items
        case let .success(value): values = [value]
        case let .failure(error): throw FenceFile.LoadError(file: source, message: "not JSON: \(error.detail) at byte \(error.offset)")
        }
        var tours: [TourDefinition] = []
        var ids = Set<[Unicode.Scalar]>()
        for (index, value) in values.enumerated() {
            do {
                let tour = try TourDecoder.decodeDefinition(value, idFromTopic: nil)
                try TourValidation.validate(tour)
                guard ids.insert(Array(tour.id.unicodeScalars)).inserted else {
                    throw FenceFile.LoadError(file: source, message: "tours[\(index)]: tour \(tour.id) is listed twice")
                }
                tours.append(tour)
            } catch let error as FenceFile.LoadError {
                throw error
            } catch {
                throw FenceFile.LoadError(file: source, message: "tours[\(index)]: \(error)")
            }
        }
        return tours
    }
}
