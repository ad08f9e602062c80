import Foundation

/// Turns `--routes PATH...` into routes: files as given, directories as their `*.gpx` files in
/// name order (so that truck k gets the same route on every machine).
public enum RouteLoader {
    public static func load(paths: [String]) throws(GPXError) -> [GPXRoute] {
        var routes: [GPXRoute] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw GPXError(file: path, line: 0, message: "no such file or directory")
            }
            if isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                let files = names.filter { $0.lowercased().hasSuffix(".gpx") }.sorted()
                guard !files.isEmpty else { throw GPXError(file: path, line: 0, message: "directory has no .gpx files") }
                for name in files {
                    routes += try GPXParser.parse(contentsOf: URL(fileURLWithPath: path).appendingPathComponent(name))
                }
            } else {
                routes += try GPXParser.parse(contentsOf: URL(fileURLWithPath: path))
            }
        }
        return routes
    }
}
