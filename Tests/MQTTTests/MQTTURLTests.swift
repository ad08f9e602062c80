import MQTT
import Testing

@Suite struct MQTTURLTests {
    @Test func parsesPlainAndTLSWithDefaultPorts() throws {
        #expect(try MQTTURL(parsing: "mqtt://broker.example") == MQTTURL(tls: false, host: "broker.example", port: 1883))
        #expect(try MQTTURL(parsing: "mqtts://broker.example") == MQTTURL(tls: true, host: "broker.example", port: 8883))
        #expect(try MQTTURL(parsing: " MQTT://10.0.0.5:1884/ ") == MQTTURL(tls: false, host: "10.0.0.5", port: 1884))
        #expect(try MQTTURL(parsing: "mqtts://[::1]:8884") == MQTTURL(tls: true, host: "::1", port: 8884))
        #expect(try MQTTURL(parsing: "mqtt://[::1]").port == 1883)
    }

    @Test func describesItselfAsAURL() throws {
        #expect(try MQTTURL(parsing: "mqtt://127.0.0.1").description == "mqtt://127.0.0.1:1883")
        #expect(MQTTURL(tls: true, host: "::1", port: 8883).description == "mqtts://[::1]:8883")
    }

    @Test(arguments: [
        "", "127.0.0.1:1883", "http://host", "tcp://host:1883", "mqtt://", "mqtt://:1883",
        "mqtt://host:0", "mqtt://host:65536", "mqtt://host:port", "mqtt://host:1883/path",
        "mqtt://user:pw@host", "mqtt://::1:1883", "mqtt://[::1", "mqtt://host?x=1",
    ])
    func rejectsWithAReason(_ text: String) {
        #expect {
            try MQTTURL(parsing: text)
        } throws: { error in
            guard case let .invalidURL(input, reason)? = error as? MQTTError else { return false }
            return input == text && !reason.isEmpty
        }
    }
}
