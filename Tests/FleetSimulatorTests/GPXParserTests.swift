import Foundation
import Testing
@testable import FleetSimulator

@Suite("GPX parsing")
struct GPXParserTests {
    @Test func trackWithTimesJoinsSegmentsAndIgnoresElevation() throws {
        let routes = try GPXParser.parse(data: Fixtures.gpx("""
            <trk><name>Morning run</name>
              <trkseg>
                <trkpt lat="49.1" lon="8.6"><ele>110</ele><time>2026-11-22T10:00:00Z</time></trkpt>
                <trkpt lat="49.2" lon="8.6"><ele>111</ele><time>2026-11-22T10:00:30.5Z</time></trkpt>
              </trkseg>
              <trkseg>
                <trkpt lat="49.3" lon="8.7"><time>2026-11-22T11:01:00+01:00</time></trkpt>
              </trkseg>
            </trk>
            """), source: "run.gpx")
        #expect(routes.count == 1)
        let route = try #require(routes.first)
        #expect(route.name == "Morning run")
        #expect(route.kind == .track)
        #expect(route.points.map(\.lat) == [49.1, 49.2, 49.3])
        #expect(route.isTimed)
        let t0 = try #require(route.points[0].time)
        #expect(route.points[1].time == t0 + 30.5)
        #expect(route.points[2].time == t0 + 60)  // 11:01 at +01:00 is 10:01Z
    }

    @Test func trackWithoutTimesIsUntimed() throws {
        let routes = try GPXParser.parse(data: Fixtures.gpx("""
            <trk><trkseg><trkpt lat="49.1" lon="8.6"/><trkpt lat="49.2" lon="8.61"/></trkseg></trk>
            """), source: "dir/plain.gpx")
        #expect(routes.first?.isTimed == false)
        #expect(routes.first?.name == "plain")
    }

    @Test func routeAndWaypoints() throws {
        let rte = try GPXParser.parse(data: Fixtures.gpx("""
            <wpt lat="1" lon="1"><name>poi next to a route is ignored</name></wpt>
            <rte><name>R</name><rtept lat="49.1" lon="8.6"/><rtept lat="49.2" lon="8.6"/></rte>
            """), source: "r.gpx")
        #expect(rte.map(\.kind) == [.route])
        #expect(rte[0].points.count == 2)

        let wpt = try GPXParser.parse(data: Fixtures.gpx("""
            <metadata><name>Tour</name></metadata>
            <wpt lat="49.1" lon="8.6"><name>A</name></wpt>
            <wpt lat="49.2" lon="8.7"><name>B</name></wpt>
            <wpt lat="49.3" lon="8.8"/>
            """), source: "w.gpx")
        #expect(wpt.map(\.kind) == [.waypoints])
        #expect(wpt[0].name == "Tour")
        #expect(wpt[0].points.map(\.lon) == [8.6, 8.7, 8.8])
    }

    @Test func namespacePrefixesAreAccepted() throws {
        let data = Data("""
            <?xml version="1.0"?>
            <g:gpx xmlns:g="http://www.topografix.com/GPX/1/1"><g:rte><g:rtept lat="1" lon="2"/><g:rtept lat="1.1" lon="2"/></g:rte></g:gpx>
            """.utf8)
        #expect(try GPXParser.parse(data: data, source: "ns.gpx").first?.points.count == 2)
    }

    @Test func malformedXMLNamesFileAndLine() {
        let data = Data("""
            <?xml version="1.0"?>
            <gpx version="1.1">
              <trk><trkseg>
                <trkpt lat="49.1" lon="8.6"></trkseg>
            </gpx>
            """.utf8)
        let error = #expect(throws: GPXError.self) { try GPXParser.parse(data: data, source: "broken.gpx") }
        #expect(error?.file == "broken.gpx")
        #expect(error?.line == 4)
        #expect(error?.description == "broken.gpx:4: malformed XML: closing tag does not match the open element")
    }

    /// Found by the gpx fuzz target (docs/performance.md "Fuzzing"): a tag name that is not UTF-8 stopped the process inside
    /// Foundation's XMLParser; it is an error naming the line. A file declared as ISO-8859-1 still reads.
    @Test func bytesThatAreNotUTF8AreAnErrorNotACrash() throws {
        let fuzzed = Data([0x3C, 0xF9, 0x00, 0x3D, 0x6D, 0x6B, 0x6B, 0x6C, 0x00, 0x00, 0x3E])
        let error = #expect(throws: GPXError.self) { try GPXParser.parse(data: fuzzed, source: "f.gpx") }
        #expect(error?.description == "f.gpx:1: \(GPXPreflight.notUTF8)")
        var named = Fixtures.gpx("<trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"/>\n<X></X></trkseg></trk>")
        named.replaceSubrange(named.range(of: Data("<X></X>".utf8))!, with: [0x3C, 0xC3, 0x28, 0x2F, 0x3E])
        #expect(throws: GPXError(file: "n.gpx", line: 5, message: GPXPreflight.notUTF8)) {
            try GPXParser.parse(data: named, source: "n.gpx")
        }
        let latin1 = Data(#"<?xml version="1.0" encoding="ISO-8859-1"?><gpx><trk><name>Caf"#.utf8) + Data([0xE9])
            + Data(#"</name><trkseg><trkpt lat="1" lon="2"/></trkseg></trk></gpx>"#.utf8)
        #expect(try GPXParser.parse(data: latin1, source: "l.gpx").first?.name == "Café")
        // A declaration that is not well formed names no encoding: the file must be UTF-8.
        var odd = Data(#"<?xml version="1.0" encoding=<"UTF-8"?><gpx><X/></gpx>"#.utf8)
        odd.replaceSubrange(odd.range(of: Data("<X/>".utf8))!, with: [0x3C, 0xC3, 0x28, 0x2F, 0x3E])
        #expect(throws: GPXError(file: "o.gpx", line: 1, message: GPXPreflight.notUTF8)) {
            try GPXParser.parse(data: odd, source: "o.gpx")
        }
        #expect(GPXPreflight.declaredEncoding(Array(#"<?xml version="1.0" encoding = 'ISO-8859-1' ?>"#.utf8)) == "iso-8859-1")
        #expect(GPXPreflight.declaredEncoding(Array(#"<?xml version="1.0" encoding="UTF-8?>"#.utf8)) == nil)
        #expect(GPXPreflight.declaredEncoding(Array(#"<?xml version="1.0"?><a encoding="latin1"/>"#.utf8)) == nil)
    }

    /// Found by the gpx fuzz target: `<?name?>`, well-formed XML, made Foundation's XMLParser read through a
    /// null pointer; an entity could bring one in unseen. Both are errors naming the line; `<?name data?>`
    /// and comments still read.
    @Test func instructionsWithoutDataAndEntityDeclarationsAreRefused() throws {
        let bare = Fixtures.gpx("<trk><trkseg>\n<?pix?><trkpt lat=\"1\" lon=\"2\"/></trkseg></trk>")
        #expect(throws: GPXError(file: "p.gpx", line: 4, message: GPXPreflight.emptyInstruction)) {
            try GPXParser.parse(data: bare, source: "p.gpx")
        }
        let entity = Data(#"<?xml version="1.0"?><!DOCTYPE gpx [<!ENTITY e "&#60;?x?>">]><gpx><wpt lat="1" lon="2"/>&e;</gpx>"#.utf8)
        #expect(throws: GPXError(file: "e.gpx", line: 1, message: GPXPreflight.entityDeclaration)) {
            try GPXParser.parse(data: entity, source: "e.gpx")
        }
        let fine = Fixtures.gpx("<?pix data?><!-- <?x ?> --><wpt lat=\"1\" lon=\"2\"/>")
        #expect(try GPXParser.parse(data: fine, source: "f.gpx").first?.points.count == 1)
    }

    @Test func truncatedFileNamesItsEnd() {
        let data = Data("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\">\n  <rte>\n    <rtept lat=\"1\" lon=\"2\"/>\n".utf8)
        let error = #expect(throws: GPXError.self) { try GPXParser.parse(data: data, source: "cut.gpx") }
        #expect(error?.message == "malformed XML: the document ends too early or has content after the root element")
        #expect((error?.line ?? 0) >= 4)
    }

    @Test func badCoordinateNamesItsLine() {
        let data = Fixtures.gpx("""
            <trk><trkseg>
              <trkpt lat="49.1" lon="8.6"/>
              <trkpt lat="91" lon="8.6"/>
            </trkseg></trk>
            """)
        let error = #expect(throws: GPXError.self) { try GPXParser.parse(data: data, source: "lat.gpx") }
        #expect(error?.line == 5)
        #expect(error?.message.contains("lat") == true)
    }

    @Test func badTimeAndBackwardsTime() {
        let bad = Fixtures.gpx("""
            <trk><trkseg><trkpt lat="49.1" lon="8.6"><time>yesterday</time></trkpt></trkseg></trk>
            """)
        let e1 = #expect(throws: GPXError.self) { try GPXParser.parse(data: bad, source: "t.gpx") }
        #expect(e1?.line == 3)
        #expect(e1?.message.contains("RFC 3339") == true)

        let backwards = Fixtures.gpx("""
            <trk><trkseg>
              <trkpt lat="49.1" lon="8.6"><time>2026-11-22T10:00:10Z</time></trkpt>
              <trkpt lat="49.2" lon="8.6"><time>2026-11-22T10:00:00Z</time></trkpt>
            </trkseg></trk>
            """)
        let e2 = #expect(throws: GPXError.self) { try GPXParser.parse(data: backwards, source: "b.gpx") }
        #expect(e2?.line == 5)
        #expect(e2?.message == "time goes backwards")
    }

    @Test func emptyFilesAndFilesWithoutPoints() {
        let e1 = #expect(throws: GPXError.self) { try GPXParser.parse(data: Data(), source: "empty.gpx") }
        #expect(e1?.description == "empty.gpx: file is empty")
        let e2 = #expect(throws: GPXError.self) { try GPXParser.parse(data: Data(" \n".utf8), source: "blank.gpx") }
        #expect(e2?.message == "file is empty")
        let e3 = #expect(throws: GPXError.self) {
            try GPXParser.parse(data: Fixtures.gpx("<trk><name>nothing</name></trk>"), source: "none.gpx")
        }
        #expect(e3?.message == "no track, route or waypoint points")
        let e4 = #expect(throws: GPXError.self) {
            try GPXParser.parse(data: Data("<kml><Placemark/></kml>".utf8), source: "x.kml")
        }
        #expect(e4?.message.contains("not a GPX file") == true)
    }

    @Test func missingFileIsAnErrorNotACrash() {
        let error = #expect(throws: GPXError.self) { try RouteLoader.load(paths: ["/nonexistent/route.gpx"]) }
        #expect(error?.file == "/nonexistent/route.gpx")
    }

    @Test func bundledRoutesParseInNameOrder() throws {
        let routes = try RouteLoader.load(paths: [Fixtures.routesDirectory.path])
        #expect(routes.count >= 6)
        let kinds = Dictionary(grouping: routes, by: \.kind).mapValues(\.count)
        #expect(kinds[.track, default: 0] >= 3)
        #expect(kinds[.route] == 1)
        #expect(kinds[.waypoints] == 1)
        #expect(routes.contains { $0.isTimed })
        #expect(routes.contains { $0.kind == .track && !$0.isTimed })
        let sources = routes.map(\.source)
        #expect(sources == sources.sorted())
    }
}
