// swift-tools-version: 6.2
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "FleetFence",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "fleetfence", targets: ["fleetfence"]),
        .executable(name: "fleetsim", targets: ["fleetsim"]),
        .executable(name: "fleetbench", targets: ["fleetbench"]),
        .executable(name: "engine-bench", targets: ["EngineBenchmark"]),
        .executable(name: "decode-bench", targets: ["DecodeBenchmark"]),
        .library(name: "GeofenceEngine", targets: ["GeofenceEngine"]),
        .library(name: "MQTT", targets: ["MQTT"]),
        // For tests of code built on FleetFence, as HummingbirdTesting is for Hummingbird: the
        // service in-process on an in-memory broker and a manual clock, collectors, a real mosquitto.
        .library(name: "FleetFenceTesting", targets: ["FleetFenceTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: ["YAML"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // What swift-configuration reads YAML with; the service reads the file's keys with it too.
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // Webhooks (docs/webhooks.md "Webhooks"): outgoing POSTs, and their HMAC-SHA256 signature. swift-crypto 4
        // is what the graph already resolves (through swift-certificates), so both majors are allowed.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // The pure geofence engine: no I/O, no clock of its own.
        .target(name: "GeofenceEngine", dependencies: ["CPrefetch"], swiftSettings: strict),
        // A prefetch hint, which Swift has no spelling for: the engine asks for the fences a sample
        // will read before it reads them (engine-bench at 100,000 fences +4.5%, docs/performance.md).
        .target(name: "CPrefetch"),
        // The one seeded generator: the simulator's noise, the benchmarks' fleets, the tests' cases.
        .target(name: "SeededRandom", swiftSettings: strict),
        // The settings of `fleetfence serve`, one table (key, flag, variable, default, help): read by the
        // service, made into its flags, and set by the programs that start it. No dependencies, so
        // that LocalBroker and the benchmarks can name settings without the service's.
        .target(name: "FleetFenceSettings", swiftSettings: strict),

        // libmosquitto, wrapped once.
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        // Debian's libsqlite3 for the journal, wrapped once (FleetFenceJournal/SQLiteConnection).
        .systemLibrary(
            name: "CSQLite3",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // glibc's mallopt settings, which Swift's Glibc module leaves out (fleetfence/LargeAllocations).
        .systemLibrary(name: "CMalloc"),
        .target(
            name: "MQTT",
            dependencies: ["CMosquitto", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        // Child processes that never outlive their owner: a private mosquitto on a free loopback
        // port, and `fleetfence serve` started by its flags alone (demo, benchmarks, tests).
        .target(
            name: "LocalBroker",
            dependencies: ["FleetFenceSettings", .product(name: "Subprocess", package: "swift-subprocess")],
            swiftSettings: strict
        ),

        // Payloads in and out: positions, fences, alerts, state, registry, errors.
        .target(name: "FleetFenceCodecs", dependencies: ["GeofenceEngine"], swiftSettings: strict),

        // The journal: Debian's libsqlite3 wrapped once, the schema, and the writer that commits
        // each step before it is acted on.
        .target(
            name: "FleetFenceJournal",
            dependencies: [
                "GeofenceEngine", "FleetFenceCodecs", "CSQLite3", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // The service: configuration, the core that decides, its MQTT edges, lifecycle.
        .target(
            name: "FleetFenceService",
            dependencies: [
                "FleetFenceSettings", "GeofenceEngine", "MQTT", "FleetFenceCodecs", "FleetFenceJournal", "CMalloc",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The HTTP interface: the live map, the API, the stream, metrics and health (Hummingbird).
        .target(
            name: "FleetFenceHTTP",
            dependencies: [
                "FleetFenceService", "FleetFenceJournal", "FleetFenceCodecs", "GeofenceEngine",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Assets")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "fleetfence",
            dependencies: [
                // MQTT and GeofenceEngine: the demo waits for the service on MQTT and hands the
                // same GeofenceSettings to the service and the verifier.
                "FleetFenceSettings", "FleetFenceService", "FleetFenceHTTP", "FleetFenceJournal", "FleetFenceCodecs",
                "FleetSimulator", "LocalBroker", "MQTT", "GeofenceEngine", "CMalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),

        // The simulator lives in Simulator/: a library (testable) and its command.
        .target(
            name: "FleetSimulator",
            dependencies: [
                "GeofenceEngine", "MQTT", "FleetFenceCodecs", "SeededRandom", .product(name: "Logging", package: "swift-log"),
                // The HTTP formats (docs/trackers.md "Connecting trackers"): OsmAnd and OwnTracks requests.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Simulator/Sources/FleetSimulator",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "fleetsim",
            dependencies: [
                "FleetSimulator", "GeofenceEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Simulator/Sources/fleetsim",
            swiftSettings: strict
        ),

        // Benchmarks: print figures, assert nothing.
        .executableTarget(
            name: "EngineBenchmark",
            dependencies: ["GeofenceEngine", "SeededRandom"],
            path: "Benchmarks/EngineBenchmark",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "DecodeBenchmark",
            dependencies: ["FleetFenceCodecs", "SeededRandom"],
            path: "Benchmarks/DecodeBenchmark",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "fleetbench",
            dependencies: [
                "MQTT", "LocalBroker", "FleetFenceSettings", "FleetFenceCodecs", "GeofenceEngine", "SeededRandom",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            path: "Benchmarks/fleetbench",
            swiftSettings: strict
        ),

        // Test support: the service in-process on an in-memory broker or a real mosquitto in one
        // line, or as a process.
        .target(
            name: "FleetFenceTesting",
            dependencies: [
                "LocalBroker", "FleetFenceSettings", "MQTT", "FleetFenceService", "FleetFenceHTTP",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // WebhookReceiver: a real HTTP receiver for webhook tests and chaos runs.
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: strict
        ),

        // The fuzz targets' checks (docs/performance.md "Fuzzing"): Scripts/fuzz links them into libFuzzer binaries,
        // FuzzCorpusTests replays the kept corpus through them.
        .target(
            name: "FuzzChecks",
            dependencies: ["FleetFenceCodecs", "GeofenceEngine", "FleetSimulator"],
            path: "Fuzz/Checks",
            swiftSettings: strict
        ),

        .testTarget(name: "GeofenceEngineTests", dependencies: ["GeofenceEngine", "SeededRandom"], swiftSettings: strict),
        .testTarget(name: "MQTTTests", dependencies: ["MQTT", "FleetFenceTesting"], swiftSettings: strict),
        .testTarget(name: "FleetFenceCodecsTests", dependencies: ["FleetFenceCodecs", "SeededRandom"], swiftSettings: strict),
        .testTarget(name: "FuzzCorpusTests", dependencies: ["FuzzChecks"], swiftSettings: strict),
        .testTarget(
            name: "FleetFenceJournalTests",
            dependencies: ["FleetFenceJournal", "GeofenceEngine", "FleetFenceCodecs"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "FleetFenceServiceTests",
            dependencies: [
                "FleetFenceSettings", "FleetFenceService", "FleetFenceJournal", "FleetFenceTesting", "FleetFenceCodecs",
                "FleetFenceHTTP",
                // Webhook tests: a real receiver, and the signature checked apart from the service's code.
                .product(name: "Hummingbird", package: "hummingbird"),
                // The HTTP tests route requests in-process; a few `.live` ones prove the socket.
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "FleetSimulatorTests",
            // FleetFenceService: several instances run in-process against a NATS cluster;
            // FleetFenceJournal: what each committed and holds, read from its journal.
            dependencies: [
                "FleetSimulator", "FleetFenceTesting", "FleetFenceCodecs", "SeededRandom", "FleetFenceService",
                "FleetFenceJournal",
            ],
            swiftSettings: strict
        ),
    ]
)
