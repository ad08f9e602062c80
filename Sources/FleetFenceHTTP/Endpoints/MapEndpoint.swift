import FleetFenceCodecs
import Foundation
import Hummingbird
import Logging

/// `/`, the live map, its scripts and styles, Leaflet, and `/openapi.json`: every file the page
/// needs comes from the service itself, so it works on a machine without internet (docs/http.md "The
/// map"). Leaflet is Debian's `libjs-leaflet`, read from where the package installs it; the
/// project's own files are resources of this module, read once at start.
struct MapEndpoint: Sendable {
    /// Where Debian's libjs-leaflet puts Leaflet.
    static let leafletDirectory = "/usr/share/javascript/leaflet"

    private let page: [UInt8]
    private let assets: [String: (bytes: [UInt8], type: String)]
    let openAPI: [UInt8]
    private let leafletDirectory: String

    init(tilesURL: String?, leafletDirectory: String = MapEndpoint.leafletDirectory, logger: Logger) {
        self.leafletDirectory = leafletDirectory
        let folder = Bundle.module.resourceURL!.appendingPathComponent("Assets")
        func read(_ name: String) -> [UInt8] {
            (try? Data(contentsOf: folder.appendingPathComponent(name))).map { [UInt8]($0) } ?? []
        }
        // The page learns the tile template from the service's configuration, in a JSON data
        // block: `<` escaped, so that no value can end the block early.
        var config = JSONWriter(capacity: 128)
        config.beginObject()
        config.key("tilesURL")
        if let tilesURL { config.string(tilesURL) } else { config.null() }
        config.endObject()
        let configText = String(decoding: config.bytes, as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c")
        let html = String(decoding: read("map.html"), as: UTF8.self).replacingOccurrences(of: "{{CONFIG}}", with: configText)
        page = Array(html.utf8)
        // Every script and style of the page, each a file named after what it draws.
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var assets: [String: (bytes: [UInt8], type: String)] = [:]
        for name in names where name.hasSuffix(".js") || name.hasSuffix(".css") {
            assets[name] = (read(name), Self.contentType(of: name))
        }
        self.assets = assets
        openAPI = read("openapi.json")
        if !FileManager.default.fileExists(atPath: leafletDirectory + "/leaflet.js") {
            logger.warning(
                "Leaflet not found: the map needs Debian's libjs-leaflet", metadata: ["expected": "\(leafletDirectory)"])
        }
    }

    func map() -> Response {
        .bytes(page, contentType: "text/html; charset=utf-8")
    }

    func asset(_ path: [String]) throws(HTTPProblem) -> Response {
        if path.count == 1, let asset = assets[path[0]] { return .bytes(asset.bytes, contentType: asset.type) }
        guard path.first == "leaflet", path.count >= 2 else { throw .notFound("no asset \(path.joined(separator: "/"))") }
        let relative = path.dropFirst()
        // Only plain names below Leaflet's folder.
        guard relative.allSatisfy({ !$0.isEmpty && $0 != ".." && $0 != "." && !$0.contains("/") }) else {
            throw .notFound("no asset \(path.joined(separator: "/"))")
        }
        let file = leafletDirectory + "/" + relative.joined(separator: "/")
        guard let data = FileManager.default.contents(atPath: file) else {
            throw .notFound("no file \(relative.joined(separator: "/")) in \(leafletDirectory) (is libjs-leaflet installed?)")
        }
        var response = Response.bytes([UInt8](data), contentType: Self.contentType(of: file))
        response.headers[.cacheControl] = "max-age=86400"
        return response
    }

    private static func contentType(of file: String) -> String {
        switch (file as NSString).pathExtension {
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "png": "image/png"
        case "svg": "image/svg+xml"
        case "map", "json": "application/json"
        default: "application/octet-stream"
        }
    }
}
