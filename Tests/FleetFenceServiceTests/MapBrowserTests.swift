import FleetFenceTesting
import Foundation
import Testing

/// The live map in a real browser (README, "The map"): Debian's chromium, headless, loads `/`
/// from the service in-process with a real mosquitto, and the test reads the rendered DOM. It
/// proves what only a browser can: the page's scripts draw every fence and device, and an alert
/// published after the page loaded appears in the list without a reload.
@Suite(
    "The map in a real browser", .timeLimit(.minutes(2)),
    .enabled(if: HeadlessChromium.executable != nil, "chromium is not installed (Debian's chromium; CI installs it)"))
struct MapBrowserTests {
    /// Where a person finds the screenshots: `.build/map-test/` of the package.
    static let screenshots = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/map-test").path

    /// A yard 800 m east of the depot: a square polygon 300 m across.
    static let yard = (lat: Geo.lat, lon: Geo.lon + 800 / (Geo.metresPerDegree * cos(Geo.lat * .pi / 180)))
    static let gate = Geo.north(500)

    static var fences: String {
        let halfLat = 150 / Geo.metresPerDegree
        let halfLon = 150 / (Geo.metresPerDegree * cos(yard.lat * .pi / 180))
        let ring = [(-1.0, -1.0), (1, -1), (1, 1), (-1, 1), (-1, -1)].map { [yard.lon + $0.0 * halfLon, yard.lat + $0.1 * halfLat] }
        let polygon: [String: Any] = [
            "type": "Feature", "properties": ["id": "yard", "name": "Rail yard"],
            "geometry": ["type": "Polygon", "coordinates": [ring]],
        ]
        return Fences.collection([
            Fences.circle("depot", radius: 150, name: "Depot"),
            polygon,
            // Clamped to min_radius_m: drawn with its effective 20 m, dashed.
            Fences.circle("gate", lat: gate.lat, lon: gate.lon, radius: 5, name: "Gatehouse"),
        ])
    }

    struct Drawn: Decodable, Equatable {
        var fences: [String: String]
        var devices: [String: String]
        var alerts: [String]
        var status: String
        var graticule: Bool
        var scale: Bool
    }

    /// What the page has drawn, read from the DOM: fence paths by `data-fence` (their shape),
    /// device markers by the drawn list (inside or not), the alert list in order.
    static let drawn = """
        ({
          fences: Object.fromEntries([...document.querySelectorAll('#map [data-fence]')].map(e => [e.dataset.fence, e.dataset.shape])),
          devices: Object.fromEntries([...document.querySelectorAll('#drawn-devices [data-device]')].map(e => [e.dataset.device, e.dataset.inside])),
          alerts: [...document.querySelectorAll('#alerts > li')].map(e => e.dataset.event + ' ' + e.dataset.device + ' ' + e.querySelector('.ff-fence').textContent),
          status: document.getElementById('status').textContent,
          graticule: document.querySelector('canvas.ff-graticule') !== null,
          scale: document.querySelector('.leaflet-control-scale') !== null,
        })
        """

    @Test func drawsFencesDevicesAndAlertsLive() async throws {
        var options = HarnessOptions()
        options[.httpListen] = "127.0.0.1:0"
        options.fences = Self.fences
        try await withService(options) { h in
            guard case let .inProcess(service) = h.service else { throw TestSupportError("in-process service expected") }
            // Recent times: the page lists the alerts of the last hour.
            let now = Date().timeIntervalSince1970.rounded()
            try await h.position("truck-1", north: 400, ts: now - 20)
            try await h.position("truck-1", north: 0, ts: now - 10)
            try await h.position("truck-1", north: 10, ts: now - 7)  // enters the depot
            try await h.position("truck-2", north: 0, ts: now - 20, of: Self.yard)  // first sight inside: silent
            try await h.position("truck-3", north: 250, ts: now - 20, of: Self.yard)
            try await h.position("truck-4", north: -400, ts: now - 20)
            #expect(await h.waitForAlerts("truck-1", count: 1).map(\.topic) == ["fleetfence/alerts/truck-1/depot/enter"])
            // The read side copies devices once a second.
            let devices = ["truck-1", "truck-2", "truck-3", "truck-4"]
            #expect(await eventually { devices.allSatisfy { service.service.readModel.device($0)?.lastLat != nil } })
            let base = try await service.httpBase()

            try await HeadlessChromium.with { browser in
                let started = ContinuousClock.now
                try await browser.load(base + "/")
                let complete = """
                    document.querySelectorAll('#map [data-fence]').length === 3
                    && document.querySelectorAll('#drawn-devices [data-device]').length === 4
                    && document.querySelectorAll('#alerts > li').length === 1
                    && document.getElementById('status').dataset.connection === 'live'
                    """
                let loaded = try await browser.waitFor(complete, timeout: .seconds(15))
                let first = try await browser.evaluate(Self.drawn, as: Drawn.self)
                try #require(loaded, "the page drew \(first)")
                #expect(first.fences == ["depot": "circle", "yard": "polygon", "gate": "circle"])
                #expect(first.devices == ["truck-1": "true", "truck-2": "true", "truck-3": "false", "truck-4": "false"])
                #expect(first.alerts == ["enter truck-1 Depot"])
                #expect(first.status.contains("4 devices") && first.status.contains("3 fences"), "\(first.status)")
                #expect(first.graticule && first.scale, "no tiles configured: graticule and scale")
                let loadTime = ContinuousClock.now - started

                // Name and id on hover: the pointer 60 m south of the depot's centre.
                let south = Geo.north(-60)
                let point = try await browser.evaluate(
                    "FleetFence.app.map.latLngToContainerPoint([\(south.lat), \(south.lon)])", as: [String: Double].self)
                let mapLeft = try await browser.evaluate("document.getElementById('map').getBoundingClientRect().left", as: Double.self)
                try await browser.moveMouse(x: mapLeft + point["x"]!, y: point["y"]!)
                #expect(try await browser.waitFor(
                    "[...document.querySelectorAll('.leaflet-tooltip')].some(t => t.textContent.includes('Depot') && t.textContent.includes('id: depot'))",
                    timeout: .seconds(5)))
                try await browser.screenshot(to: Self.screenshots + "/map.png")

                // The same document from here on: a reload would lose this mark.
                _ = try await browser.evaluate("document.body.dataset.testMark = 'loaded once'", as: String.self)

                // A new alert, a new fence and a deleted one, all after the page loaded.
                try await h.position("truck-3", north: 0, ts: now + 1, of: Self.yard)
                try await h.position("truck-3", north: 10, ts: now + 4, of: Self.yard)
                try await h.publish(
                    "fleetfence/fences/dock/set",
                    Fences.circleDefinition(lat: Geo.north(-300).lat, lon: Geo.lon, radius: 60, name: "Dock"))
                try await h.publish("fleetfence/fences/gate/set", [UInt8]())
                let live = """
                    document.querySelector('#alerts > li')?.dataset.device === 'truck-3'
                    && document.querySelector('#drawn-devices [data-device="truck-3"]')?.dataset.inside === 'true'
                    && document.querySelector('#map [data-fence="dock"]') !== null
                    && document.querySelector('#map [data-fence="gate"]') === null
                    """
                let updated = try await browser.waitFor(live, timeout: .seconds(15))
                let after = try await browser.evaluate(Self.drawn, as: Drawn.self)
                try #require(updated, "the page shows \(after)")
                #expect(after.alerts == ["enter truck-3 Rail yard", "enter truck-1 Depot"], "newest first")
                #expect(after.fences == ["depot": "circle", "yard": "polygon", "dock": "circle"])
                #expect(try await browser.evaluate("document.body.dataset.testMark", as: String.self) == "loaded once")
                try await browser.screenshot(to: Self.screenshots + "/map-live.png")

                try await drawsShapesToCome(browser)
                #expect(browser.problems.isEmpty, "the page reported: \(browser.problems)")
                print("map in chromium: drawn in \(loadTime); screenshots in \(Self.screenshots)")
            }
        }
    }

    /// Holes, MultiPolygons and corridors: shapes the service will hold with the fleet rules
    /// (README, "Fences"), drawn here from the GeoJSON that `/api/fences` serves for them.
    private func drawsShapesToCome(_ browser: HeadlessChromium) async throws {
        let lat = Geo.lat - 0.006
        let lon = Geo.lon
        func square(_ centreLat: Double, _ centreLon: Double, _ half: Double) -> [[Double]] {
            [[-1.0, -1.0], [1, -1], [1, 1], [-1, 1], [-1, -1]].map { [centreLon + $0[0] * half * 1.5, centreLat + $0[1] * half] }
        }
        let features: [[String: Any]] = [
            [
                "type": "Feature", "properties": ["id": "ring", "name": "Ring"],
                "geometry": ["type": "Polygon", "coordinates": [square(lat, lon, 0.0015), square(lat, lon, 0.0006)]],
            ],
            [
                "type": "Feature", "properties": ["id": "twin", "name": "Twin"],
                "geometry": [
                    "type": "MultiPolygon",
                    "coordinates": [[square(lat, lon + 0.006, 0.0008)], [square(lat, lon + 0.0095, 0.0008)]],
                ],
            ],
            [
                "type": "Feature", "properties": ["id": "road", "name": "Road", "buffer_m": 40],
                "geometry": ["type": "LineString", "coordinates": [[lon - 0.008, lat - 0.002], [lon - 0.004, lat + 0.001], [lon + 0.012, lat + 0.0015]]],
            ],
        ]
        let script = "(" + Fences.json(features) + ").forEach(f => FleetFence.app.fences.set(f)),"
            + " FleetFence.app.map.fitBounds(FleetFence.app.fences.bounds(), {animate: false}), true"
        _ = try await browser.evaluate(script, as: Bool.self)

        struct Shape: Decodable {
            var shape: String
            var subpaths: Int
            var width: Double
        }
        let shapes = try await browser.evaluate(
            """
            Object.fromEntries(['ring', 'twin', 'road'].map(id => {
              const e = document.querySelector('#map [data-fence="' + id + '"]');
              return [id, { shape: e.dataset.shape, subpaths: (e.getAttribute('d').match(/M/g) || []).length,
                            width: Number(e.getAttribute('stroke-width')) }];
            }))
            """, as: [String: Shape].self)
        #expect(shapes["ring"]?.shape == "polygon")
        #expect(shapes["ring"]?.subpaths == 2, "outer ring and hole")
        #expect(shapes["twin"]?.shape == "multipolygon")
        #expect(shapes["twin"]?.subpaths == 2)
        #expect(shapes["road"]?.shape == "corridor")
        // As wide as the corridor (2 × buffer_m) at this zoom, measured on the map itself.
        let expected = try await browser.evaluate(
            """
            (() => { const m = FleetFence.app.map, c = m.getCenter();
              const a = m.latLngToContainerPoint(c), b = m.latLngToContainerPoint([c.lat, c.lng + 80 / (111319.49 * Math.cos(c.lat * Math.PI / 180))]);
              return b.x - a.x; })()
            """, as: Double.self)
        let width = try #require(shapes["road"]?.width)
        #expect(abs(width - expected) < 0.05 * expected, "stroke \(width) px for 80 m, \(expected) px expected")
        try await browser.screenshot(to: Self.screenshots + "/map-shapes.png")
    }
}
