import FleetFenceCodecs
import Foundation
import GeofenceEngine

/// `fences.record`: `{"definition":<the plain definition>,"generation":N}`. The definition is the
/// plain format of a `set` payload (`FenceDefinitionEncoding`); the generation tells a restored device which
/// fences are new to it (docs/rules.md "The rules": first sight).
public enum JournalFenceRecord {
    /// `definition` is already encoded: a file of 100,000 fences encodes each one once, for both
    /// this row and the record of the file.
    public static func encode(definition: [UInt8], generation: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(definition.count + 40)
        bytes += #"{"definition":"#.utf8
        bytes += definition
        bytes += #","generation":"#.utf8
        bytes += String(generation).utf8
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    public static func decode(_ bytes: [UInt8]) throws -> FenceRecord {
        let value: JSONValue
        switch JSONParser.parse(bytes) {
        case let .success(parsed): value = parsed
        case let .failure(error): throw UnreadableRecord(description: "not JSON: \(error)")
        }
        guard case let .object(envelope) = value else { throw UnreadableRecord(description: "not a JSON object") }
        guard let definition = envelope["definition"] else { throw UnreadableRecord(description: "no definition") }
        guard case let .number(generation)? = envelope["generation"], let exact = UInt32(exactly: generation) else {
            throw UnreadableRecord(description: "no generation, or not a whole number in range")
        }
        return FenceRecord(definition: try FenceDecoder.decodeDefinition(definition, idFromTopic: nil), generation: exact)
    }
}
