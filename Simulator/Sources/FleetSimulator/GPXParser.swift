import FleetFenceCodecs
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads GPX 1.0/1.1: tracks (`trk/trkseg/trkpt`, segments joined, `time` kept), routes
/// (`rte/rtept`) and waypoints (`wpt`). Elevation and extensions are ignored.
///
/// Waypoints become a route only in a file with no track or route: next to a track they are
/// usually points of interest, not a path.
public enum GPXParser {
    public static func parse(contentsOf url: URL) throws(GPXError) -> [GPXRoute] {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw GPXError(file: url.path, line: 0, message: "cannot read: \(error.localizedDescription)")
        }
        return try parse(data: data, source: url.path)
    }

    /// `source` names the file in errors and routes.
    public static func parse(data: Data, source: String) throws(GPXError) -> [GPXRoute] {
        if data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            throw GPXError(file: source, line: 0, message: "file is empty")
        }
        if let (line, message) = GPXPreflight.problem(data) {
            throw GPXError(file: source, line: line, message: message)
        }
        let reader = GPXReader(source: source)
        let parser = XMLParser(data: data)
        parser.delegate = reader
        parser.shouldProcessNamespaces = false
        let ok = parser.parse()
        if let failure = reader.failure { throw failure }
        if let (line, error) = reader.xmlError {
            throw GPXError(file: source, line: max(line, 1), message: xmlReason(error))
        }
        if !ok {
            let reason = (parser.parserError as NSError?).map(xmlReason) ?? "malformed XML"
            throw GPXError(file: source, line: max(parser.lineNumber, 1), message: reason)
        }
        guard reader.sawRoot else {
            throw GPXError(file: source, line: 0, message: "not a GPX file (no <gpx> root element)")
        }
        var routes = reader.routes
        if routes.isEmpty, !reader.waypoints.isEmpty {
            routes.append(GPXRoute(
                name: reader.fileName ?? stem(source), points: reader.waypoints, kind: .waypoints, source: source))
        }
        guard !routes.isEmpty else {
            throw GPXError(file: source, line: max(parser.lineNumber, 1), message: "no track, route or waypoint points")
        }
        return routes
    }

    /// Foundation gives no message, only libxml2's error code (raw, not `XMLParser.ErrorCode`
    /// on Linux): name the common ones.
    private static func xmlReason(_ error: NSError) -> String {
        let what: String? = switch error.code {
        case 4: "no XML content"
        case 5: "the document ends too early or has content after the root element"
        case 9: "invalid character"
        case 23: "entity reference without ';'"
        case 38: "'<' in an attribute value"
        case 39, 40, 41: "malformed attribute (values must be quoted)"
        case 42: "attribute given twice"
        case 68: "name expected (a stray '<' or '&'?)"
        case 73: "'>' expected"
        case 76: "closing tag does not match the open element"
        case 77: "unfinished tag"
        default: nil
        }
        return "malformed XML: \(what ?? "parser error \(error.code)")"
    }

    static func stem(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.hasSuffix(".gpx") ? String(name.dropLast(4)) : name
    }
}

/// The XMLParser delegate: collects points, stops at the first problem with its line.
private final class GPXReader: NSObject, XMLParserDelegate {
    let source: String
    var routes: [GPXRoute] = []
    var waypoints: [RoutePoint] = []
    var fileName: String?
    var failure: GPXError?
    var sawRoot = false
    var xmlError: (line: Int, error: NSError)?

    private var path: [String] = []
    private var text = ""
    private var current: (kind: RouteKind, name: String?, points: [RoutePoint], lines: [Int])?
    private var point: RoutePoint?
    private var pointLine = 0

    init(source: String) {
        self.source = source
    }

    private func fail(_ parser: XMLParser, _ message: String) {
        guard failure == nil else { return }
        failure = GPXError(file: source, line: parser.lineNumber, message: message)
        parser.abortParsing()
    }

    /// GPX files in the wild use prefixes (`gpx:trkpt`); only the local name matters.
    private static func localName(_ name: String) -> String {
        name.split(separator: ":").last.map(String.init) ?? name
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes: [String: String] = [:]
    ) {
        let name = Self.localName(elementName)
        if path.isEmpty {
            guard name == "gpx" else { return fail(parser, "not a GPX file (root element <\(name)>)") }
            sawRoot = true
        }
        path.append(name)
        text = ""
        switch name {
        case "trk": current = (.track, nil, [], [])
        case "rte": current = (.route, nil, [], [])
        case "trkpt", "rtept", "wpt":
            let parent = path.dropLast().last
            let expected = ["trkpt": "trkseg", "rtept": "rte", "wpt": "gpx"][name]
            guard parent == expected else { return fail(parser, "<\(name)> outside <\(expected ?? "")>") }
            guard let lat = attributes["lat"].flatMap(Double.init), lat.isFinite, (-90...90).contains(lat) else {
                return fail(parser, "<\(name)> has no valid lat attribute (\(attributes["lat"] ?? "missing"))")
            }
            guard let lon = attributes["lon"].flatMap(Double.init), lon.isFinite, (-180...180).contains(lon) else {
                return fail(parser, "<\(name)> has no valid lon attribute (\(attributes["lon"] ?? "missing"))")
            }
            point = RoutePoint(lat: lat, lon: lon)
            pointLine = parser.lineNumber
        default: break
        }
    }

    /// Foundation on Linux may recover from some XML errors and still return success from
    /// `parse()`; the first error reported here wins either way.
    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        xmlError = xmlError ?? (parser.lineNumber, parseError as NSError)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        let name = Self.localName(elementName)
        let parent = path.dropLast().last
        defer {
            path.removeLast()
            text = ""
        }
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch name {
        case "time" where point != nil && ["trkpt", "rtept", "wpt"].contains(parent ?? ""):
            guard let time = RFC3339.parse(value) else { return fail(parser, "<time> \"\(value)\" is not RFC 3339") }
            point?.time = time
        case "name" where parent == "trk" || parent == "rte":
            if !value.isEmpty { current?.name = value }
        case "name" where parent == "metadata" || parent == "gpx":
            if !value.isEmpty { fileName = value }
        case "trkpt", "rtept":
            if let point { current?.points.append(point); current?.lines.append(pointLine) }
            point = nil
        case "wpt":
            if let point { waypoints.append(point) }
            point = nil
        case "trk", "rte":
            if let route = current { finish(parser, route) }
            current = nil
        default: break
        }
    }

    private func finish(_ parser: XMLParser, _ route: (kind: RouteKind, name: String?, points: [RoutePoint], lines: [Int])) {
        guard !route.points.isEmpty else { return }
        // A replay cannot run time backwards; a clear error beats a truck that teleports.
        if route.points.allSatisfy({ $0.time != nil }) {
            for i in route.points.indices.dropFirst() where route.points[i].time! < route.points[i - 1].time! {
                failure = GPXError(file: source, line: route.lines[i], message: "time goes backwards")
                parser.abortParsing()
                return
            }
        }
        let base = route.name ?? fileName ?? GPXParser.stem(source)
        let name = routes.contains { $0.name == base } ? "\(base) #\(routes.count + 1)" : base
        routes.append(GPXRoute(name: name, points: route.points, kind: route.kind, source: source))
    }
}
