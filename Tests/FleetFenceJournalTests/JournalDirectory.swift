import Foundation

/// A scratch directory for journal files, removed with the value: every suite of this target
/// that opens a journal of its own.
final class JournalDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("fleetfence-journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String = "journal.db") -> String { url.appendingPathComponent(name).path }
}
