import Foundation
import FuzzChecks
import Testing

/// Every input the fuzzer kept (`Fuzz/Corpus/<target>/`, crashes found and fixed among them) through the
/// same checks as the fuzz targets, in the regular build (docs/performance.md "Fuzzing").
@Suite("Fuzz corpus replay")
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus")

    @Test(arguments: FuzzTarget.allCases)
    func corpusHoldsItsInvariants(target: FuzzTarget) throws {
        let folder = Self.corpus.appendingPathComponent(target.rawValue)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names.count >= 10, "\(folder.path) holds \(names.count) inputs")
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))
            do {
                try bytes.withUnsafeBytes { try target.check($0) }
            } catch {
                Issue.record("\(target.rawValue)/\(name): \(error)")
            }
        }
    }
}
