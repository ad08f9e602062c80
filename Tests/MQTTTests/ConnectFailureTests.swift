import FleetFenceTesting
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ConnectFailureTests {
    @Test func nothingListeningFailsWithUnreachable() async throws {
        let port = try LocalMosquitto.freeLoopbackPort()
        let client = try MQTTClient(options: MQTTOptions(url: MQTTURL(host: "127.0.0.1", port: port)), logger: testLogger())
        do {
            try await client.connect(timeout: .seconds(5))
            Issue.record("connected to a port where nothing listens")
        } catch let error as MQTTError {
            guard case let .unreachable(host, reportedPort, reason) = error else {
                Issue.record("expected .unreachable, got \(error)")
                return
            }
            #expect(host == "127.0.0.1" && reportedPort == port)
            #expect(reason.lowercased().contains("refused"), "reason: \(reason)")
        }
        #expect(!client.isConnected)
        #expect(client.publish(topic: "t", payload: "x", qos: 1) == .dropped(.notStarted))
    }

    @Test func unknownHostFailsWithUnreachable() async throws {
        let client = try MQTTClient(options: MQTTOptions(url: MQTTURL(parsing: "mqtt://no-such-host.invalid")), logger: testLogger())
        await #expect {
            try await client.connect(timeout: .seconds(5))
        } throws: { error in
            guard case .unreachable? = error as? MQTTError else { return false }
            return true
        }
    }

    @Test func connectWhileRunningIsRejected() async throws {
        try await withLocalBroker { broker in
            let client = try await broker.connectedClient()
            await #expect(throws: MQTTError.alreadyStarted) {
                try await client.connect(timeout: .seconds(5))
            }
            #expect(client.isConnected)
            await client.disconnect()
        }
    }

    @Test func inconsistentOptionsAreRejectedAtInit() throws {
        let url = MQTTURL(host: "127.0.0.1")
        #expect(throws: MQTTError.self) { try MQTTClient(options: MQTTOptions(url: url, cleanSession: false)) }
        #expect(throws: MQTTError.self) { try MQTTClient(options: MQTTOptions(url: url, keepAliveSeconds: 1)) }
        #expect(throws: MQTTError.self) { try MQTTClient(options: MQTTOptions(url: url, maxInflight: 0)) }
        #expect(throws: MQTTError.self) { try MQTTClient(options: MQTTOptions(url: url, password: "no user")) }
        #expect(throws: MQTTError.self) {
            try MQTTClient(options: MQTTOptions(url: MQTTURL(tls: true, host: "h"), caFile: "/nonexistent/ca.pem"))
        }
    }

    @Test func credentialsAreCheckedByTheBroker() async throws {
        try await withTemporaryDirectory { directory in
            let passwords = directory + "/passwords"
            try makeMosquittoPasswordFile(at: passwords, users: ["fleetfence": "s3cret"])
            try await withLocalBroker(extraConfig: "allow_anonymous false\npassword_file \(passwords)") { broker in
                var options = broker.clientOptions()
                options.username = "fleetfence"
                options.password = "s3cret"
                let good = try await broker.connectedClient(options)
                #expect(good.isConnected)
                await good.disconnect()

                options.password = "wrong"
                await expectRefused(options)
                options.username = nil
                options.password = nil
                await expectRefused(options)
            }
        }
    }

    private func expectRefused(_ options: MQTTOptions) async {
        await #expect {
            try await MQTTClient(options: options, logger: testLogger()).connect(timeout: .seconds(5))
        } throws: { error in
            guard case let .refused(reason, _)? = error as? MQTTError else { return false }
            return reason.contains("not authorised")
        }
    }
}
