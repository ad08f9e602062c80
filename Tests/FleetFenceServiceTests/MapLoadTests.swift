import FleetFenceTesting
import Foundation
import Testing

/// The map following 10,000 moving devices through the real stream (README, "The map"): each
/// device moves every second, so the page receives about 10,000 `state` events a second. Prints
/// how long the page took to draw them all and how its frames went, all in view and then zoomed
/// in; asserts only that every device was drawn. A measurement, not a check: it keeps both
/// cores busy for about a minute, so it runs only with FLEETFENCE_MAP_LOAD=1.
@Suite(
    "The map with 10,000 moving devices", .timeLimit(.minutes(5)),
    .enabled(if: ProcessInfo.processInfo.environment["FLEETFENCE_MAP_LOAD"] != nil, "set FLEETFENCE_MAP_LOAD=1 to measure"),
    .enabled(if: HeadlessChromium.executable != nil, "chromium is not installed"))
struct MapLoadTests {
    static let devices = 10_000
    /// The fleet's square, in metres from the depot (Geo) east and north.
    static let side = 10_000.0

    static func point(east: Double, north: Double) -> (lat: Double, lon: Double) {
        (Geo.lat + north / Geo.metresPerDegree, Geo.lon + east / (Geo.metresPerDegree * cos(Geo.lat * .pi / 180)))
    }

    /// A random walk at 10 m/s per device, the same on every run.
    struct Fleet {
        var east: [Double] = []
        var north: [Double] = []
        var heading: [Double] = []
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15

        init(count: Int) {
            for _ in 0..<count {
                east.append(random() * MapLoadTests.side)
                north.append(random() * MapLoadTests.side)
                heading.append(random() * 2 * .pi)
            }
        }

        mutating func random() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }

        mutating func step(_ i: Int) {
            heading[i] += (random() - 0.5) * 0.6
            east[i] += 10 * cos(heading[i])
            north[i] += 10 * sin(heading[i])
            // Back into the square, turned around.
            if east[i] < 0 || east[i] > MapLoadTests.side || north[i] < 0 || north[i] > MapLoadTests.side {
                east[i] = min(max(east[i], 0), MapLoadTests.side)
                north[i] = min(max(north[i], 0), MapLoadTests.side)
                heading[i] += .pi
            }
        }
    }

    struct Frames: Decodable, CustomStringConvertible {
        struct Spread: Decodable {
            var count: Int
            var p50: Double
            var p95: Double
            var p99: Double
            var max: Double
        }
        var seconds: Double
        var frames: Spread
        var work: Spread
        var longTasks: Int
        var longTaskMax: Double
        var longTaskTotal: Double
        var events: Int
        var drawn: Int
        var heapMB: Double

        var description: String {
            func ms(_ value: Double) -> String { String(format: "%.1f", value) }
            return "\(frames.count) frames in \(ms(seconds)) s (\(ms(Double(frames.count) / seconds)) fps); frame interval p50 "
                + "\(ms(frames.p50)) p95 \(ms(frames.p95)) p99 \(ms(frames.p99)) max \(ms(frames.max)) ms; the map's work per "
                + "frame p50 \(ms(work.p50)) p95 \(ms(work.p95)) max \(ms(work.max)) ms; long tasks \(longTasks) (max "
                + "\(ms(longTaskMax)) ms, \(ms(longTaskTotal)) ms in all); \(events) stream events "
                + "(\(Int(Double(events) / seconds))/s); \(drawn) markers drawn; JS heap \(ms(heapMB)) MB"
        }
    }

    /// Frame intervals from requestAnimationFrame, the map's own work per frame (its frame
    /// loop, timed), long tasks, and stream events, from now until `collect`.
    static let record = """
        (() => {
          const app = FleetFence.app, r = { frames: [], work: [], long: [], events: 0, last: performance.now(), stop: false };
          const run = app.loop.constructor.prototype.run;
          app.loop.run = function () { const t = performance.now(); run.call(this); r.work.push(performance.now() - t); };
          const receive = app.stream.constructor.prototype.receive;
          app.stream.receive = function (name, data) { r.events++; receive.call(this, name, data); };
          const tick = (t) => { r.frames.push(t - r.last); r.last = t; if (!r.stop) requestAnimationFrame(tick); };
          requestAnimationFrame(tick);
          r.observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) r.long.push(e.duration); });
          r.observer.observe({ type: "longtask" });
          r.started = performance.now();
          FleetFence.measurement = r;
          return true;
        })()
        """

    static let collect = """
        (() => {
          const r = FleetFence.measurement, app = FleetFence.app;
          r.stop = true;
          r.observer.disconnect();
          delete app.loop.run;
          delete app.stream.receive;
          const spread = (values) => {
            const s = values.slice().sort((a, b) => a - b), at = (p) => s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : 0;
            return { count: s.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: s.length ? s[s.length - 1] : 0 };
          };
          return {
            seconds: (performance.now() - r.started) / 1000, frames: spread(r.frames.slice(1)), work: spread(r.work),
            longTasks: r.long.length, longTaskMax: Math.max(0, ...r.long), longTaskTotal: r.long.reduce((a, b) => a + b, 0),
            events: r.events, drawn: document.querySelectorAll('#drawn-devices li').length,
            heapMB: performance.memory ? performance.memory.usedJSHeapSize / 1048576 : 0,
          };
        })()
        """

    @Test func followsTenThousandMovingDevices() async throws {
        var options = HarnessOptions()
        options[.httpListen] = "127.0.0.1:0"
        // 100 circles of 300 m, 1 km apart, over the fleet's square.
        options.fences = Fences.collection((0..<100).map { i in
            let p = Self.point(east: 500 + Double(i % 10) * 1000, north: 500 + Double(i / 10) * 1000)
            return Fences.circle("f\(i)", lat: p.lat, lon: p.lon, radius: 300, name: "Fence \(i)")
        })
        try await withService(options) { h in
            guard case let .inProcess(service) = h.service else { throw TestSupportError("in-process service expected") }
            let publisher = h.publisher
            // Every device once a second, in 20 slices of 500, at QoS 0 as trackers send.
            let publishing = Task {
                var fleet = Fleet(count: Self.devices)
                let slice = Self.devices / 20
                while !Task.isCancelled {
                    for start in stride(from: 0, to: Self.devices, by: slice) {
                        let ts = Date().timeIntervalSince1970
                        for i in start..<(start + slice) {
                            fleet.step(i)
                            let p = Self.point(east: fleet.east[i], north: fleet.north[i])
                            _ = publisher.publish(
                                topic: "fleet/truck-\(i)/position", payload: Array(#"{"lat":\#(p.lat),"lon":\#(p.lon),"ts":\#(ts)}"#.utf8), qos: 0)
                        }
                        try? await Task.sleep(for: .milliseconds(50))
                    }
                }
            }
            defer { publishing.cancel() }
            #expect(await eventually(timeout: .seconds(60)) { service.service.readModel.deviceCount == Self.devices })
            let base = try await service.httpBase()

            try await HeadlessChromium.with { browser in
                let started = ContinuousClock.now
                try await browser.load(base + "/")
                let drawn = try await browser.waitFor(
                    "document.querySelectorAll('#drawn-devices li').length === \(Self.devices)", timeout: .seconds(60))
                let drawTime = ContinuousClock.now - started
                #expect(drawn, "every device drawn")

                _ = try await browser.evaluate(Self.record, as: Bool.self)
                try await Task.sleep(for: .seconds(15))
                let all = try await browser.evaluate(Self.collect, as: Frames.self)
                try await browser.screenshot(to: MapBrowserTests.screenshots + "/map-10000.png")

                // Zoomed in on one corner: a few hundred devices in view, with trails.
                _ = try await browser.evaluate(
                    "(FleetFence.app.map.setView([\(Self.point(east: 1500, north: 1500).lat), \(Self.point(east: 1500, north: 1500).lon)], 15, {animate: false}), true)",
                    as: Bool.self)
                try await Task.sleep(for: .seconds(2))
                _ = try await browser.evaluate(Self.record, as: Bool.self)
                try await Task.sleep(for: .seconds(10))
                let zoomed = try await browser.evaluate(Self.collect, as: Frames.self)
                try await browser.screenshot(to: MapBrowserTests.screenshots + "/map-10000-zoomed.png")
                #expect(browser.problems.isEmpty, "the page reported: \(browser.problems)")
                print("""
                    map with \(Self.devices) moving devices: page loaded and every marker drawn in \(drawTime)
                    all in view: \(all)
                    zoomed in: \(zoomed)
                    """)
            }
        }
    }
}
