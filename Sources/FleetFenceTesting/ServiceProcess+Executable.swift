import Foundation

extension ServiceProcess {
    /// The built `fleetfence`: `FLEETFENCE_BINARY` if set, else next to the test bundle (the same
    /// build directory, so `--scratch-path` is honoured), else the package's `.build/debug`.
    public static func locateExecutable(filePath: String = #filePath) throws -> String {
        var candidates: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["FLEETFENCE_BINARY"], !explicit.isEmpty {
            candidates.append(explicit)
        }
        var directories: [URL] = []
        let bundle = URL(fileURLWithPath: Bundle.main.bundlePath)
        directories.append(bundle.hasDirectoryPath ? bundle : bundle.deletingLastPathComponent())
        directories.append(bundle.deletingLastPathComponent())
        if let first = CommandLine.arguments.first, first.contains("/") {
            let runner = URL(fileURLWithPath: first).resolvingSymlinksInPath()
            directories.append(runner.deletingLastPathComponent())
            // macOS: .../debug/X.xctest/Contents/MacOS/X
            directories.append(
                runner.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent())
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(URL(fileURLWithPath: bundle.bundlePath).deletingLastPathComponent())
        }
        candidates += directories.map { $0.appendingPathComponent("fleetfence").path }
        // Sources/FleetFenceTesting/ServiceProcess+Executable.swift -> the package root.
        let root = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates += [".build-svctests/debug/fleetfence", ".build/debug/fleetfence"].map {
            root.appendingPathComponent($0).path
        }
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate) {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue {
                return candidate
            }
        }
        throw TestSupportError(
            "fleetfence binary not found (build it first: swift build); looked at:\n"
                + candidates.joined(separator: "\n"))
    }
}
