import Testing

@testable import FleetFenceService

@Suite("Position topic router")
struct PositionTopicRouterTests {
    let router = PositionTopicRouter(
        positionFilters: ["fleet/+/position", "owntracks/+/+", "site/+/gps/#"], layout: TopicLayout(prefix: "ff"))

    @Test func nativePositionsTakeTheFirstWildcardAsDevice() {
        #expect(router.route("fleet/truck-7/position") == .position(device: "truck-7", format: .native))
        #expect(router.route("fleet/a-device-id-longer-than-fifteen/position")
            == .position(device: "a-device-id-longer-than-fifteen", format: .native))
        #expect(router.route("site/gate/gps") == .position(device: "gate", format: .native), "# matches its parent level")
        #expect(router.route("site/gate") == .unrelated)
        #expect(router.route("site/gate/gps/raw/1") == .position(device: "gate", format: .native))
    }

    @Test func ownTracksDevicesAreUserDashDevice() {
        #expect(router.route("owntracks/alice/phone") == .position(device: "alice-phone", format: .ownTracks))
        #expect(router.route("owntracks/alice/") == .noDevice)
        #expect(router.route("owntracks/alice/phone/event") == .unrelated)
    }

    @Test func fenceDefinitionsUnderThePrefix() {
        #expect(router.route("ff/fences/depot/set") == .fenceSet(id: "depot"))
        #expect(router.route("ff/fences//set") == .fenceSet(id: ""))
        #expect(router.route("ff/fences/a/b/set") == .unrelated)
        #expect(router.route("ff/fences/depot") == .unrelated)
        #expect(router.route("other/fences/depot/set") == .unrelated)
    }

    /// A position topic with an empty device level is answered on the errors topic, not dropped.
    @Test func anEmptyDeviceLevelIsNoDevice() {
        #expect(router.route("fleet//position") == .noDevice)
        #expect(router.route("owntracks//phone") == .noDevice)
    }

    /// Only an empty level is "no device": a filter with too few `+` for its format is not.
    @Test func aFilterWithTooFewWildcardsIsUnrelated() {
        let router = PositionTopicRouter(positionFilters: ["owntracks/+/#"], layout: TopicLayout(prefix: "ff"))
        #expect(router.route("owntracks/alice/phone") == .unrelated)
    }

    @Test func everythingElseIsUnrelated() {
        for topic in ["", "/", "fleet", "fleet/", "fleet/x/position/extra", "fleet/x/positions",
                      "Fleet/x/position", "fleet/x"] {
            #expect(router.route(topic) == .unrelated, "\(topic)")
        }
    }

    /// Traccar's and mapped topics name no device: the payload does.
    @Test func payloadDeviceInputsAreRoutedByFormat() {
        let router = PositionTopicRouter(
            positionFilters: ["fleet/+/position"], traccarFilters: ["traccar/#"], mappingFilters: ["acme/+/gps", "raw"],
            layout: TopicLayout(prefix: "ff"))
        #expect(router.route("traccar/positions") == .payloadDevice(format: .traccar))
        #expect(router.route("traccar") == .payloadDevice(format: .traccar))
        #expect(router.route("acme/van/gps") == .payloadDevice(format: .mapping(0)))
        #expect(router.route("raw") == .payloadDevice(format: .mapping(1)))
        #expect(router.route("fleet/t/position") == .position(device: "t", format: .native))
        #expect(router.route("acme/van") == .unrelated)
    }
}
