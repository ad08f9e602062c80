import FleetFenceTesting
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ConnectTimeoutTests {
    @Test func silentServerEndsInTimedOut() async throws {
        let silent = try SilentListener()
        let client = try MQTTClient(options: MQTTOptions(url: MQTTURL(host: "127.0.0.1", port: silent.port)), logger: testLogger())
        await #expect(throws: MQTTError.timedOut(host: "127.0.0.1", port: silent.port, after: .milliseconds(300))) {
            try await client.connect(timeout: .milliseconds(300))
        }
        #expect(!client.isConnected)
        #expect(client.publish(topic: "t", payload: "x", qos: 1) == .dropped(.notStarted))
    }

    @Test func cancellingConnectEndsIt() async throws {
        let silent = try SilentListener()
        let client = try MQTTClient(options: MQTTOptions(url: MQTTURL(host: "127.0.0.1", port: silent.port)), logger: testLogger())
        let attempt = Task { try await client.connect(timeout: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(100))
        attempt.cancel()
        await #expect(throws: MQTTError.cancelled) { try await attempt.value }
    }
}
