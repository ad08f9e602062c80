import Foundation

/// Finds the `fleetfence` binary to start `serve` from, the same way for the demo, fleetbench and
/// the tests: the one built with the caller, never whichever `fleetfence` is on PATH.
public enum FleetFenceExecutable {
    /// In this order: `override`; this very process when it is `fleetfence` (the demo runs
    /// itself); `FLEETFENCE_BINARY`; a `fleetfence` next to this process's executable (fleetbench,
    /// and the test runner in the build directory, so `--scratch-path` is honoured); next to a test
    /// bundle (macOS); the package's `.build/debug`.
    public static func locate(override: String? = nil, sourceFile: String = #filePath) throws(LocalBrokerError) -> String {
        let candidates = candidates(override: override, sourceFile: sourceFile)
        let fileManager = FileManager.default
        for candidate in candidates where fileManager.isExecutableFile(atPath: candidate) {
            var isDirectory: ObjCBool = false
            if fileManager.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue {
                return candidate
            }
        }
        throw .serviceNotFound(searched: candidates)
    }

    private static func candidates(override: String?, sourceFile: String) -> [String] {
        var candidates: [String] = []
        if let override, !override.isEmpty { candidates.append(override) }
        let own = ownExecutable()
        if let own, own.lastPathComponent == "fleetfence" { candidates.append(own.path) }
        if let explicit = ProcessInfo.processInfo.environment["FLEETFENCE_BINARY"], !explicit.isEmpty {
            candidates.append(explicit)
        }
        var directories: [URL] = own.map { [$0.deletingLastPathComponent()] } ?? []
        if let first = CommandLine.arguments.first, first.contains("/") {
            let runner = URL(fileURLWithPath: first).resolvingSymlinksInPath()
            directories.append(runner.deletingLastPathComponent())
            // macOS: .../debug/X.xctest/Contents/MacOS/X
            directories.append(runner.deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent())
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(URL(fileURLWithPath: bundle.bundlePath).deletingLastPathComponent())
        }
        // Sources/LocalBroker/FleetFenceExecutable.swift -> the package root.
        let root = URL(fileURLWithPath: sourceFile).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        directories += [".build-svctests/debug", ".build/debug"].map { root.appendingPathComponent($0) }
        for path in directories.map({ $0.appendingPathComponent("fleetfence").standardizedFileURL.path })
        where !candidates.contains(path) {
            candidates.append(path)
        }
        return candidates
    }

    /// This process's executable, links resolved.
    private static func ownExecutable() -> URL? {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        #endif
        return Bundle.main.executablePath.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath() }
    }
}
