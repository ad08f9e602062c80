import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the demo finds its files and keeps its temporary ones.
enum DemoPaths {
    /// `path` as an absolute path. A relative default that is not in the working directory is
    /// looked up in the source tree this executable was built from, so that the demo also works
    /// when started from elsewhere.
    static func resolve(_ path: String, isDefault: Bool, what: String, sourceFile: String = #filePath) throws -> String {
        let fileManager = FileManager.default
        let given = URL(fileURLWithPath: path).standardizedFileURL.path
        if fileManager.fileExists(atPath: given) { return given }
        if isDefault {
            // Sources/fleetfence/DemoPaths.swift -> the package root.
            let root = URL(fileURLWithPath: sourceFile).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            let built = root.appendingPathComponent(path).standardizedFileURL.path
            if fileManager.fileExists(atPath: built) { return built }
        }
        throw DemoError(
            "\(what) \(path) not found" + (isDefault ? " (run the demo from the FleetFence directory, or pass its path)" : ""))
    }

    /// A fresh private directory for the journal and the service's log.
    static func makeWorkspace() throws -> String {
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("fleetfence-demo-\(getpid())-XXXXXX").path
        var buffer = Array(template.utf8CString)
        guard let created = mkdtemp(&buffer) else {
            throw DemoError("cannot create a temporary directory: \(String(cString: strerror(errno)))")
        }
        return String(cString: created)
    }
}
